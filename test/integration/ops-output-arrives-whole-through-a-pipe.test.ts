import { randomUUID } from 'node:crypto';
import { createQuarantine } from '@forms/quarantine';
import { JOB_OPTIONS, jobNameFor, opsKeys, toJobPayload } from '@forms/schemas';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';

// Issue 54.1: ops ended with process.exit() right after printing, and Node drops what a pipe has not taken
// yet: `ops spam list --json | wc -c` printed 65536 of 540,161 bytes, exit status 0. Each listing here is
// over 1 MiB, read from the spawned process's stdout pipe (tests/support/ops-cli.ts), and must be whole:
// valid JSON, every row, the text's summary at the end. A reader that leaves after one line (`| head -1`)
// ends the command quietly, with the command's own exit status.
const MIB = 1024 * 1024;
const HELD = 7_000;
const FAILED = 4_000;
const queueName = `ops-pipe-${randomUUID()}`;
const env = { REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName };
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  redis = new Redis(env.REDIS_URL);
  queue = new Queue(queueName, { connection: { url: env.REDIS_URL } });
  // Held the way the gateway holds one (its quarantine script), all at once: one round trip each, pipelined.
  const quarantine = createQuarantine(redis, { prefix: 'bull' }, queueName, {
    maxAgeMs: 3_600_000,
    maxCount: HELD,
    timeoutMs: 30_000,
  });
  const acceptedAt = new Date().toISOString();
  await Promise.all(
    Array.from({ length: HELD }, (_, i) =>
      quarantine(
        toJobPayload(
          'contact',
          { email: `held-${i}@acme.io` },
          { submissionId: `sub_held${i}`, recordId: `con_held${i}`, acceptedAt },
        ),
        {
          reasons: [
            { layer: 'rules', code: 'too_many_links', detail: 'more than 3 links in the message field', weight: 0.5 },
            { layer: 'filter', code: 'spam_score', detail: '0.9912 >= 0.9', weight: 0.5 },
            { layer: 'challenge', code: 'missing-input-response', weight: 1 },
          ],
        },
      ),
    ),
  );
  // Failed the way the worker fails one: added in bulk, then failed for good by a BullMQ worker.
  await queue.addBulk(
    Array.from({ length: FAILED }, (_, i) => ({
      name: jobNameFor('contact'),
      data: toJobPayload(
        'contact',
        { email: `failed-${i}@acme.io` },
        { submissionId: `sub_failed${i}`, recordId: `con_failed${i}`, acceptedAt },
      ),
      opts: { ...JOB_OPTIONS, jobId: `sub_failed${i}`, attempts: 1 },
    })),
  );
  const worker = new Worker(
    queueName,
    async () => {
      throw new UnrecoverableError('Airtable 422 UNKNOWN_FIELD_NAME: Unknown field name: "Campaign source"');
    },
    { connection: { url: env.REDIS_URL }, concurrency: 200 },
  );
  await new Promise<void>((resolve) => {
    let failed = 0;
    worker.on('failed', () => ++failed === FAILED && resolve());
  });
  await worker.close();
}, 60_000);

afterAll(async () => {
  const keys = opsKeys({ prefix: 'bull' }, queueName);
  await redis?.del(keys.spamIndex, keys.spamData, keys.spamReasons);
  await queue?.obliterate({ force: true });
  await queue?.close();
  redis?.disconnect();
});

it('spam list --json, spam list and failed --json of over 1 MiB each arrive whole through a pipe', async () => {
  const [heldJson, heldText, failedJson] = await Promise.all([
    runOps(['spam', 'list', '--json', '--limit', String(HELD)], env),
    runOps(['spam', 'list', '--limit', String(HELD)], env),
    runOps(['failed', '--json', '--limit', String(FAILED)], env),
  ]);
  expect([heldJson, heldText, failedJson].map((run) => [run.code, run.stderr, run.stdout.length > MIB])).toEqual([
    [0, '', true],
    [0, '', true],
    [0, '', true],
  ]);
  expect(heldJson.json).toMatchObject({ count: HELD, listed: HELD });
  expect(new Set(heldJson.json.submissions.map((r: { id: string }) => r.id)).size).toBe(HELD);

  const lines = heldText.stdout.trimEnd().split('\n');
  expect(lines.filter((line) => line.startsWith('sub_held'))).toHaveLength(HELD);
  // The summary is the listing's last words.
  expect(lines.slice(-4)).toEqual([
    `${HELD} listed, by reason:`,
    `  ${String(HELD).padStart(6)}  rules:too_many_links (more than 3 links in the message field)`,
    `  ${String(HELD).padStart(6)}  filter:spam_score (0.9912 >= 0.9)`,
    `  ${String(HELD).padStart(6)}  challenge:missing-input-response`,
  ]);

  expect(failedJson.json).toMatchObject({ count: FAILED, listed: FAILED });
  expect(new Set(failedJson.json.jobs.map((r: { id: string }) => r.id)).size).toBe(FAILED);
}, 60_000);

it('a reader that leaves after the first line (| head -1) ends the command quietly, exit 0', async () => {
  const runs = await Promise.all([
    runOps(['spam', 'list', '--json', '--limit', String(HELD)], env, { firstLineOnly: true }),
    runOps(['spam', 'list', '--limit', String(HELD)], env, { firstLineOnly: true }),
    runOps(['failed', '--json', '--limit', String(FAILED)], env, { firstLineOnly: true }),
  ]);
  expect(runs.map((run) => [run.code, run.stderr])).toEqual([
    [0, ''],
    [0, ''],
    [0, ''],
  ]);
  expect(runs.map((run) => run.stdout)).toEqual(['{\n', expect.stringMatching(/^sub_held\d+ .*\n$/), '{\n']);
}, 60_000);
