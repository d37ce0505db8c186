import { randomUUID } from 'node:crypto';
import { freePort } from '@forms/local-services';
import { JOB_OPTIONS } from '@forms/schemas';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { createPostgresCrm } from '../crm/postgres-crm.ts';
import { openPostgres } from '../db/database.ts';
import { createWorker } from '../worker.ts';

// Issue 19, item 6: a payload that failed its schema failed with valibot's message as its reason, and
// valibot quotes the refused input (`Invalid email: Received "…"`): the raw value was kept in Redis as
// the job's failedReason, for every `ops failed` listing and alert to show. The reason names the field and
// what was expected, never the value.
const queueName = `schema-fail-${randomUUID()}`;
let redis: Redis;
let queue: Queue;
let events: QueueEvents;
let close: () => Promise<void>;

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  queue = new Queue(queueName, { connection: redis });
  events = new QueueEvents(queueName, { connection: { url: inject('redisUrl') } });
  await events.waitUntilReady();
  const config = loadConfig({ REDIS_URL: inject('redisUrl'), QUEUE_NAME: queueName, LOG_LEVEL: 'silent' });
  // The CRM is never reached: the payload fails before it.
  const crm = createPostgresCrm(openPostgres(`postgres://127.0.0.1:${await freePort()}/none`, { max: 1 }));
  const worker = createWorker({ config, crm, logger: pino({ level: 'silent' }) });
  close = async () => {
    await worker.close();
    await crm.close();
  };
});
afterAll(async () => {
  await close?.();
  await events?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  redis?.disconnect();
});

const envelope = { v: 1, submissionId: 'sub_1', recordId: 'sub_1', acceptedAt: new Date().toISOString() };

it.each([
  [
    'an email that is not one',
    'caf-signup.v1',
    { email: 'ada.quillfeather(at)acme.io' },
    'ada.quillfeather',
    /data\.email/,
  ],
  [
    'a phone of the wrong type',
    'cpa-signup.v1',
    { email: 'a@acme.io', phoneNumber: 4477009001234 },
    '4477009001234',
    /data\.phoneNumber/,
  ],
  [
    'a name too long',
    'usa-signup.v1',
    { email: 'a@acme.io', name: `Quillfeather${'x'.repeat(300)}` },
    'Quillfeather',
    /data\.name/,
  ],
])('%s: the failed reason names the field, never the value', async (_what, name, data, value, field) => {
  const job = await queue.add(
    name,
    { ...envelope, kind: name.split('.')[0], data },
    { ...JOB_OPTIONS, jobId: randomUUID() },
  );
  await expect(job.waitUntilFinished(events, 10_000)).rejects.toThrow(/Payload does not match/);
  const failed = (await queue.getJob(job.id!))!;
  expect(failed.failedReason).toMatch(field);
  expect(failed.failedReason).not.toContain(value);
  expect(JSON.stringify(await queue.getJobLogs(job.id!))).not.toContain(value);
});
