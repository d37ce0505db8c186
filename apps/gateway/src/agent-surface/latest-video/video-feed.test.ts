import { describe, expect, it } from 'vitest';
import { atomFeed } from './video-feed.fixture.ts';
import { FeedFormatError, parseLatestVideo } from './video-feed.ts';

describe('parseLatestVideo', () => {
  it('reads the newest entry by publication time, entities decoded and numeric titles kept as text', () => {
    const xml = atomFeed([
      { id: 'older000001', title: 'Seeding &amp; affiliates', published: '2026-01-02T10:00:00+00:00' },
      { id: 'newest00002', title: '2026', published: '2026-03-04T09:30:00+00:00' },
    ]);
    expect(parseLatestVideo(xml)).toEqual({
      videoId: 'newest00002',
      title: '2026',
      published: '2026-03-04T09:30:00.000Z',
      url: 'https://www.youtube.com/watch?v=newest00002',
      thumbnail: 'https://i1.ytimg.com/vi/newest00002/hqdefault.jpg',
      channelUrl: 'https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv',
    });
    expect(
      parseLatestVideo(atomFeed([{ id: 'a1', title: 'Seeding &amp; affiliates', published: '2026-01-02T10:00:00Z' }]))
        .title,
    ).toBe('Seeding & affiliates');
  });

  it('throws FeedFormatError for malformed XML, a non-feed and an empty feed', () => {
    expect(() => parseLatestVideo('<feed><entry><title>oops</feed>')).toThrow(FeedFormatError);
    expect(() => parseLatestVideo('<html><body>Not found</body></html>')).toThrow(FeedFormatError);
    expect(() => parseLatestVideo(atomFeed([]))).toThrow(/no videos/);
    expect(() => parseLatestVideo('not xml at all')).toThrow(FeedFormatError);
  });
});
