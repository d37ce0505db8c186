import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type LocalRedis, startRedisServer } from '@forms/local-services';
import { JOB_OPTIONS, jobNameFor, toJobPayload } from '@forms/schemas';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, spawnApp, spawnGateway } from '../support/spawn-app.ts';
import { eventually } from '../support/wait.ts';

// Each test starts its Redis late, on a port chosen up front, so the apps meet a Redis that is not there yet.
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function kill(child: ChildProcess) {
  return () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
}

async function lateRedis(port: number): Promise<LocalRedis> {
  const redis = await startRedisServer({ port });
  cleanups.push(() => redis.stop());
  return redis;
}

async function contact(url: string) {
  const res = await fetch(`${url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${randomUUID()}@acme.io` }),
  });
  return { status: res.status, body: await res.json() };
}

describe('Redis down at start-up', () => {
  it('the gateway starts anyway, answers 503 QUEUE_UNAVAILABLE, and takes submissions once Redis is up', async () => {
    const redisPort = await freePort();
    // Before the fix it exited with 1 here ("gateway did not start"): the first connection error rejected
    // its start-up.
    const gateway: GatewayProcess = await spawnGateway({
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      QUEUE_NAME: `late-${randomUUID()}`,
      // The default hold: Redis down since start is answered 503 at once (redis-down-since-start-answers-at-once).
    });
    cleanups.push(kill(gateway.child));
    const url = gateway.url;
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(gateway.child.exitCode).toBeNull();
    expect((await fetch(`${url}/readyz`)).status).toBe(503);
    const refused = await contact(url);
    expect(refused).toMatchObject({ status: 503, body: { code: 'QUEUE_UNAVAILABLE' } });

    await lateRedis(redisPort);
    await eventually(async () => (await contact(url)).status === 200, { timeoutMs: 15_000 });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(gateway.child.exitCode).toBeNull();
  }, 90_000);

  it('the worker waits for Redis however long it is away, then delivers', async () => {
    const redisPort = await freePort();
    const queueName = `late-${randomUUID()}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'late-worker-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // Only what it is given: the test run's DATABASE_URL must not reach it (it would migrate and write a
    // database this test did not create); it keeps its store in its own DATA_DIR.
    const worker = await spawnApp(
      'worker',
      { REDIS_URL: `redis://127.0.0.1:${redisPort}`, QUEUE_NAME: queueName, DATA_DIR: dataDir },
      { inheritEnv: false, waitFor: 'waiting for Redis' },
    );
    cleanups.push(kill(worker.child));
    // Past its first "waiting for Redis" warning (every 5 s), it is still there.
    expect(worker.child.exitCode).toBeNull();

    const redis = await lateRedis(redisPort);
    await eventually(async () => worker.output().includes('worker consuming'), { timeoutMs: 60_000 });
    const queue = new Queue(queueName, { connection: { url: redis.url } });
    cleanups.push(() => queue.close());
    const payload = toJobPayload(
      'contact',
      { email: 'late@acme.io' },
      { submissionId: `sub_${randomUUID()}`, recordId: `con_${randomUUID()}`, acceptedAt: new Date().toISOString() },
    );
    await queue.add(jobNameFor('contact'), payload, { ...JOB_OPTIONS, jobId: payload.submissionId });
    await eventually(async () => (await queue.getJobState(payload.submissionId)) === 'completed', {
      timeoutMs: 30_000,
    });
  }, 150_000);
});
