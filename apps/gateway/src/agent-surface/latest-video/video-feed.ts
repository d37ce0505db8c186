import { type LatestVideo, LatestVideoSchema } from '@forms/schemas';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import * as v from 'valibot';

/** The feed answered, but not with an Atom feed we can read a video from. */
export class FeedFormatError extends Error {}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Keep text as text: a title such as "2024" must not become a number.
  parseTagValue: false,
  isArray: (name) => ['entry', 'link', 'media:thumbnail'].includes(name),
});

// biome-ignore lint/suspicious/noExplicitAny: a parsed XML tree of any shape; read through `text`
type Node = Record<string, any>;

const text = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : value && typeof value === 'object' && typeof (value as Node)['#text'] === 'string'
      ? (value as Node)['#text']
      : undefined;

const alternate = (links: Node[] | undefined): string | undefined =>
  (links ?? []).find((l) => (l['@_rel'] ?? 'alternate') === 'alternate')?.['@_href'];

/**
 * The newest entry of a YouTube channel's Atom feed (by `published`, not by position). Throws
 * FeedFormatError for XML that does not parse, a document that is not an Atom feed, or a feed with no video.
 */
export function parseLatestVideo(xml: string): LatestVideo {
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw new FeedFormatError(`feed is not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const feed = (parser.parse(xml) as Node).feed as Node | undefined;
  if (!feed || typeof feed !== 'object') throw new FeedFormatError('document is not an Atom feed');
  const entries = ((feed.entry ?? []) as Node[]).filter(
    (e) => text(e['yt:videoId']) && !Number.isNaN(Date.parse(text(e.published) ?? '')),
  );
  if (entries.length === 0) throw new FeedFormatError('feed has no videos');
  const newest = entries.reduce((a, b) => (Date.parse(text(b.published)!) > Date.parse(text(a.published)!) ? b : a));
  const videoId = text(newest['yt:videoId'])!;
  const channelId = text(newest['yt:channelId']) ?? text(feed['yt:channelId']);
  const candidate = {
    videoId,
    title: text(newest.title) ?? text(newest['media:group']?.['media:title']) ?? '',
    published: new Date(text(newest.published)!).toISOString(),
    url: alternate(newest.link) ?? `https://www.youtube.com/watch?v=${videoId}`,
    thumbnail:
      newest['media:group']?.['media:thumbnail']?.[0]?.['@_url'] ?? `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg`,
    channelUrl:
      text(newest.author?.uri) ??
      alternate(feed.link) ??
      (channelId ? `https://www.youtube.com/channel/${channelId}` : undefined),
  };
  const result = v.safeParse(LatestVideoSchema, candidate);
  if (!result.success)
    throw new FeedFormatError(
      `newest entry is incomplete: ${v.getDotPath(result.issues[0]) ?? 'entry'} ${result.issues[0].message}`,
    );
  return result.output;
}

/** Feeds are a few tens of kilobytes; anything far larger is not the feed we want. */
const MAX_FEED_BYTES = 2 * 1024 * 1024;

export async function fetchFeed(
  url: string,
  { fetch, timeoutMs }: { fetch: typeof globalThis.fetch; timeoutMs: number },
): Promise<string> {
  const response = await fetch(url, {
    signal: AbortSignal.timeout(timeoutMs),
    headers: { accept: 'application/atom+xml, application/xml;q=0.9, text/xml;q=0.8' },
  });
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`feed answered ${response.status}`);
  }
  return readCapped(response, MAX_FEED_BYTES);
}

/** The body as text, read only up to `maxBytes`: past it the stream is cancelled, not read to its end. */
async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw new FeedFormatError('feed is too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
