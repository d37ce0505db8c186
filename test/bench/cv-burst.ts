/**
 * `pnpm bench:cv [--applications 200] [--cv-mib 4] [--concurrency 8]`: a launch-day burst of careers
 * applications, each with a CV, against one gateway with no worker running (every job stays queued: the
 * worst case for Redis). Prints Redis memory growth across the burst and fails when it reaches 5 MB:
 * CVs are staged in object storage, so each job holds a reference of a few hundred bytes, whereas the
 * same burst with base64 in the jobs would have put the size printed as "base64 sent" into Redis.
 * Everything runs on 127.0.0.1: its own redis-server and s3rver on free ports, data in a temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, startGateway } from '@forms/gateway';
import { startLocalS3, startRedisServer } from '@forms/local-services';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';

const { values } = parseArgs({
  options: {
    applications: { type: 'string', default: '200' },
    'cv-mib': { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '8' },
  },
});
const total = Math.max(1, Math.min(2_000, Number(values.applications)));
const cvBytes = Math.round(Math.min(5, Math.max(0.01, Number(values['cv-mib']))) * 1024 * 1024);
const concurrency = Math.max(1, Math.min(64, Number(values.concurrency)));
const LIMIT_BYTES = 5 * 1024 * 1024;
const MiB = (n: number) => `${(n / 1024 / 1024).toFixed(2)} MiB`;

const dir = mkdtempSync(join(tmpdir(), 'forms-cv-bench-'));
const redisServer = await startRedisServer();
const s3 = await startLocalS3({ dir: join(dir, 's3') });
const queueName = 'cv-bench';
const gateway = await startGateway(
  loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: redisServer.url,
    QUEUE_NAME: queueName,
    LOG_LEVEL: 'warn',
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: 'cvs',
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  }),
  pino({ level: 'warn' }),
);
const redis = new Redis(redisServer.url);
const queue = new Queue(queueName, { connection: redis });

async function usedMemory(): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

// One CV for the whole burst (each application still gets its own staged object): a PDF header, then filler.
const cvBase64 = samplePdf(cvBytes - samplePdf(0).length).toString('base64');
async function apply(i: number): Promise<{ status: number; cvUploadFailed?: boolean }> {
  const res = await fetch(`${gateway.url}/api/careers-apply`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `Applicant ${i}`,
      email: `applicant-${i}@acme.io`,
      role: 'Engineer',
      cvFile: { filename: `cv-${i}.pdf`, contentType: PDF_TYPE, data: cvBase64 },
    }),
  });
  return { status: res.status, ...((await res.json()) as { cvUploadFailed?: boolean }) };
}

try {
  await apply(-1); // warm-up: the queue's keys and scripts exist before the baseline is taken
  const before = await usedMemory();
  const started = performance.now();
  const answers: { status: number; cvUploadFailed?: boolean }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) answers.push(await apply(next++));
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const after = await usedMemory();
  const growth = after - before;
  const waiting = await queue.getWaitingCount();
  const sample = await queue.getJob((await queue.getWaiting(0, 0))[0]!.id!);
  const ok = answers.filter((a) => a.status === 200 && a.cvUploadFailed === false).length;

  console.log(
    `applications: ${total} × ${MiB(cvBytes)} CV, ${concurrency} at a time, in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(1)}/s)`,
  );
  console.log(
    `accepted with CV kept: ${ok}/${total}; jobs waiting in Redis: ${waiting}; one job's JSON: ${JSON.stringify(sample?.data).length} bytes`,
  );
  console.log(`base64 sent: ${MiB(cvBase64.length * total)} (what Redis would hold if CVs travelled in jobs)`);
  console.log(
    `Redis used_memory: ${MiB(before)} before, ${MiB(after)} after: growth ${MiB(growth)} (limit ${MiB(LIMIT_BYTES)})`,
  );
  if (ok !== total || growth >= LIMIT_BYTES) {
    console.error(
      growth >= LIMIT_BYTES ? 'FAIL: Redis grew past the limit' : 'FAIL: not every application kept its CV',
    );
    process.exitCode = 1;
  } else {
    console.log('PASS');
  }
} finally {
  await gateway.stop();
  await queue.close();
  redis.disconnect();
  await redisServer.stop();
  await s3.stop();
  rmSync(dir, { recursive: true, force: true });
}
