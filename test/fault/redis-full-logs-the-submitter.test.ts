import { randomUUID } from 'node:crypto';
import { type LocalRedis, startRedisServer } from '@forms/local-services';
import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GatewayProcess, spawnGateway } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';

// Issue 19, item 3: with Redis at `maxmemory` (noeviction), the gateway's "queue unavailable" warning
// carried ioredis's `err.command.args`: BullMQ's add arguments, the job's JSON with the submitter's email,
// name and phone. The error serializer kept `command`. Here 16 clients submit at once to every endpoint
// while Redis refuses every write, the gateway logging at debug: no line may hold any submitted value.
const SUBMITTERS = 16;
const ROUNDS = 3;
const run = Date.now().toString(36);
let redis: LocalRedis;
let gateway: GatewayProcess;

beforeAll(async () => {
  redis = await startRedisServer();
  // No rate limit: its claim script is refused before the add, and the add is where the job's JSON travels.
  gateway = await spawnGateway({
    REDIS_URL: redis.url,
    QUEUE_NAME: `full-${randomUUID()}`,
    LOG_LEVEL: 'debug',
    RATE_LIMIT_REQUESTS: '0',
  });
  const admin = new Redis(redis.url);
  const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);
  await admin.config('SET', 'maxmemory', String(used - 1));
  admin.disconnect();
}, 60_000);

afterAll(async () => {
  if (gateway && gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await redis?.stop();
});

it('no log line holds a submitted value while Redis refuses writes under 16 concurrent submitters', async () => {
  const secrets: string[] = [];
  const endpoints = SUBMISSION_ENDPOINTS;
  const statuses: number[] = [];
  async function submitter(s: number) {
    for (let round = 0; round < ROUNDS; round++) {
      for (const [e, endpoint] of endpoints.entries()) {
        const tag = `full${run}s${s}r${round}e${e}`;
        const body: Record<string, unknown> = { ...validBody(endpoint.kind, tag) };
        // Personal values of their own, each findable in a log line if it leaked.
        const name = `Quillfeather${tag}`;
        const phone = `+44 7700 9${String(s * 1000 + round * 100 + e).padStart(5, '0')}`;
        for (const key of ['name', 'fullName']) if (key in body) body[key] = name;
        for (const key of ['phoneNumber', 'whatsappNumber']) if (key in body) body[key] = phone;
        if ('message' in body) body.message = `call me on ${phone}`;
        secrets.push(tag, name, phone, phone.replace(/\D/g, ''));
        const res = await fetch(`${gateway.url}${endpoint.path}`, {
          method: endpoint.method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
        statuses.push(res.status);
        await res.arrayBuffer();
      }
    }
  }
  await Promise.all(Array.from({ length: SUBMITTERS }, (_, s) => submitter(s)));

  // Redis at maxmemory refuses every job: each answer is the honest 503, none a 200 for an unstored job.
  expect(statuses).toHaveLength(SUBMITTERS * ROUNDS * endpoints.length);
  expect(new Set(statuses)).toEqual(new Set([503]));
  const output = gateway.output();
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  // The refusals were logged, with Redis's reason and the command's name, but nothing of what was sent.
  const warned = lines.filter((line) => line.includes('queue unavailable'));
  expect(warned.length).toBeGreaterThan(0);
  expect(warned.some((line) => line.includes('OOM'))).toBe(true);
  const leaks = lines.flatMap((line) => secrets.filter((secret) => line.includes(secret)).map((s) => `${s}: ${line}`));
  expect(leaks.slice(0, 3)).toEqual([]);
}, 120_000);
