import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { Redis } from 'ioredis';

const run = promisify(execFile);

/**
 * Every key of a Redis and everything it holds: for each key (SCAN, bounded) its type, its value read by
 * type (strings, hashes, lists, sets, sorted sets with scores, streams), and its DUMP (Redis's own
 * serialisation, hex). The values are read as well as dumped because DUMP may LZF-compress a long value,
 * which would hide an address from a byte search. TTLs are left out: the same data with less time to live
 * is the same data.
 */
export async function dumpRedis(redis: Redis): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '0';
  for (let turn = 0; turn < 10_000; turn++) {
    const [next, keys] = await redis.scan(cursor, 'COUNT', 1000);
    for (const key of keys) {
      const type = await redis.type(key);
      let value: unknown;
      if (type === 'string') value = await redis.get(key);
      else if (type === 'hash') value = await redis.hgetall(key);
      else if (type === 'list') value = await redis.lrange(key, 0, -1);
      else if (type === 'set') value = (await redis.smembers(key)).sort();
      else if (type === 'zset') value = await redis.zrange(key, '0', '-1', 'WITHSCORES');
      else if (type === 'stream') value = await redis.xrange(key, '-', '+');
      else if (type === 'none') continue; // expired between SCAN and now
      const dump = await redis.dumpBuffer(key);
      out.set(
        key,
        JSON.stringify({ type, value, dump: dump?.toString('hex') ?? null, dumpText: dump?.toString('latin1') }),
      );
    }
    cursor = next;
    if (cursor === '0') return out;
  }
  throw new Error('SCAN did not finish in 10,000 turns');
}

/**
 * The whole database as `pg_dump` writes it (schema and data, plain SQL). A fixed `--restrict-key`: pg_dump
 * 15.14 and later otherwise write a random one into every dump, and two dumps of the same data would differ.
 */
export async function pgDump(url: string): Promise<string> {
  const { stdout } = await run(
    'pg_dump',
    ['--no-owner', '--no-privileges', '--restrict-key=formsdump', '--dbname', url],
    {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30_000,
    },
  );
  return stdout;
}

/** Every object of a bucket: key, metadata, content type and bytes (latin1, so any byte is searchable). */
export async function dumpBucket(client: S3Client, bucket: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let token: string | undefined;
  for (let page = 0; page < 1_000; page++) {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const object of listed.Contents ?? []) {
      const key = object.Key!;
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const bytes = Buffer.from(await got.Body!.transformToByteArray());
      out.set(
        key,
        JSON.stringify({
          metadata: head.Metadata,
          type: head.ContentType,
          disposition: head.ContentDisposition,
          bytes: bytes.toString('latin1'),
        }),
      );
    }
    token = listed.IsTruncated ? listed.NextContinuationToken : undefined;
    if (!token) return out;
  }
  throw new Error('more than 1,000 pages of objects');
}

/**
 * Where any of `needles` occurs in the dumps, ignoring case: `store: key` for each hit. JSON escaping
 * leaves an address or a phone number as it is, so one search covers keys, values and bytes.
 */
export function findBytes(dumps: Record<string, Map<string, string> | string>, needles: string[]): string[] {
  const hits: string[] = [];
  const wanted = needles.map((n) => n.toLowerCase());
  for (const [store, dump] of Object.entries(dumps)) {
    const entries = typeof dump === 'string' ? [['(all)', dump] as const] : [...dump];
    for (const [key, text] of entries) {
      const hay = `${key}\n${text}`.toLowerCase();
      for (const needle of wanted)
        if (hay.includes(needle)) hits.push(`${store}: ${key} holds ${needle.length} bytes sought`);
    }
  }
  return hits;
}
