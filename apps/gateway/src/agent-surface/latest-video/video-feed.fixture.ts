/** The shape of a YouTube channel feed (entries trimmed to what we read). */
export function atomFeed(entries: { id: string; title: string; published: string }[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns:yt="http://www.youtube.com/xml/schemas/2015" xmlns:media="http://search.yahoo.com/mrss/" xmlns="http://www.w3.org/2005/Atom">
 <link rel="self" href="http://www.youtube.com/feeds/videos.xml?channel_id=UCabcdefghijklmnopqrstuv"/>
 <id>yt:channel:abcdefghijklmnopqrstuv</id>
 <yt:channelId>abcdefghijklmnopqrstuv</yt:channelId>
 <title>Agency channel</title>
 <link rel="alternate" href="https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv"/>
${entries
  .map(
    (e) => ` <entry>
  <id>yt:video:${e.id}</id>
  <yt:videoId>${e.id}</yt:videoId>
  <yt:channelId>UCabcdefghijklmnopqrstuv</yt:channelId>
  <title>${e.title}</title>
  <link rel="alternate" href="https://www.youtube.com/watch?v=${e.id}"/>
  <author><name>Agency</name><uri>https://www.youtube.com/channel/UCabcdefghijklmnopqrstuv</uri></author>
  <published>${e.published}</published>
  <updated>${e.published}</updated>
  <media:group>
   <media:title>${e.title}</media:title>
   <media:thumbnail url="https://i1.ytimg.com/vi/${e.id}/hqdefault.jpg" width="480" height="360"/>
  </media:group>
 </entry>`,
  )
  .join('\n')}
</feed>`;
}
