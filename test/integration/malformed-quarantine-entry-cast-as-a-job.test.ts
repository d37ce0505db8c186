import { randomUUID } from 'node:crypto';
import { opsKeys, toJobPayload } from '@forms/schemas';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';

// `ops spam` cast the quarantine's JSON to a job payload without parsing it: an entry that is not JSON
// crashed `spam list` for every entry, and one of the wrong shape was released into the queue as a job the
// worker could only fail. Now each entry is read through the job catalog's schema: a malformed one is
// reported (what is wrong, never its values) and not released; the good ones go on as before.
const queueName = `spam-malformed-${randomUUID()}`;
const env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, OPS_ACTOR: 'malformed-test' };
const keys = opsKeys({ prefix: 'bull' }, queueName);
const ids = {
  good: 'sub_01jz000000000000000000good',
  notJson: 'sub_01jz00000000000000000nojson',
  shape: 'sub_01jz0000000000000000000shape',
};
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  redis = new Redis(env.REDIS_URL);
  queue = new Queue(queueName, { connection: { url: env.REDIS_URL } });
  const at = new Date().toISOString();
  const good = toJobPayload(
    'contact',
    { email: 'ada@acme.io' },
    { submissionId: ids.good, recordId: 'con_good', acceptedAt: at },
  );
  const entries: Record<string, string> = {
    [ids.good]: JSON.stringify(good),
    [ids.notJson]: '{"v":1,"kind":"contact","data":{"email":"grace@acme.io"',
    // A contact without its email: JSON, but not a job of the catalog.
    [ids.shape]: JSON.stringify({ ...good, submissionId: ids.shape, data: { name: 'Grace Quillfeather' } }),
  };
  for (const [id, json] of Object.entries(entries)) {
    await redis.hset(keys.spamData, id, json);
    await redis.zadd(keys.spamIndex, Date.now(), id);
  }
});
afterAll(async () => {
  await redis?.del(keys.spamData, keys.spamIndex, keys.audit);
  await queue?.obliterate({ force: true });
  await queue?.close();
  redis?.disconnect();
});

it('a malformed entry is reported by list, show and release, never released; the good one is', async () => {
  const list = await runOps(['spam', 'list', '--json'], env);
  expect(list.code, list.stderr).toBe(0);
  const rows = Object.fromEntries(list.json.submissions.map((r: { id: string }) => [r.id, r]));
  expect(rows[ids.good]).toMatchObject({ kind: 'contact' });
  expect(rows[ids.good].malformed).toBeUndefined();
  expect(rows[ids.notJson]).toMatchObject({ malformed: 'not JSON' });
  expect(rows[ids.shape]).toMatchObject({ malformed: expect.stringContaining('data.email') });

  const show = await runOps(['spam', 'show', ids.shape], env);
  expect(show.code).toBe(1);
  expect(show.stdout).toContain('malformed');
  expect(show.stdout + show.stderr).not.toContain('Quillfeather');

  const release = await runOps(['spam', 'release', ids.good, ids.notJson, ids.shape, '--json'], env);
  expect(release.code, release.stderr).toBe(1);
  expect(release.json).toMatchObject({ released: 1, missing: 0, malformed: 2 });
  // Only the good one is queued; the malformed stay in the quarantine, to purge.
  expect((await queue.getJobs(['waiting', 'prioritized', 'delayed'])).map((j) => j.id)).toEqual([ids.good]);
  expect((await redis.hkeys(keys.spamData)).sort()).toEqual([ids.notJson, ids.shape].sort());
});
