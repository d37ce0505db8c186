import * as v from 'valibot';

/** GET /api/latest-video: the newest entry of the channel's public Atom feed. */
export const LatestVideoSchema = v.object({
  videoId: v.pipe(v.string(), v.minLength(1), v.description('Video identifier on the platform')),
  title: v.pipe(v.string(), v.description('Video title')),
  published: v.pipe(v.string(), v.isoTimestamp(), v.description('Publication timestamp')),
  url: v.pipe(v.string(), v.url(), v.description('Watch URL')),
  thumbnail: v.pipe(v.string(), v.url(), v.description('Thumbnail image URL')),
  channelUrl: v.pipe(v.string(), v.url(), v.description('Channel URL')),
});
export type LatestVideo = v.InferOutput<typeof LatestVideoSchema>;
