import { freePort } from '@forms/local-services';
import { createLogger } from '@forms/observability';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { FakeAirtable } from '../support/airtable-server.ts';
import { enqueueSubmissions, mixedSubmissions } from '../support/airtable-submissions.ts';
import { type AirtableWorker, startAirtableWorker } from '../support/airtable-worker.ts';
import { runOps } from '../support/ops-cli.ts';
import { eventually } from '../support/wait.ts';

// Issue 30.7: an Airtable nobody answers at was recorded as `fetch failed` and nothing else, in the job's
// failed reason (`ops failed`, `ops show`) and in the log: undici keeps the cause (ECONNREFUSED, and where)
// in `err.cause`, and nothing read it. The reason now carries the code and host:port, never the credentials.
let worker: AirtableWorker;
let port: number;
const lines: string[] = [];

beforeAll(async () => {
  // A port nothing listens on, outside the range the OS hands out itself: connections to it are refused.
  port = await freePort();
  const closed = { url: `http://127.0.0.1:${port}` } as FakeAirtable;
  const logger = createLogger({ level: 'warn' }, { write: (line: string) => lines.push(line) });
  worker = await startAirtableWorker(closed, {
    apiKey: 'patSecretToken',
    baseId: 'appUnreachable',
    env: { RETRY_BASE_DELAY_MS: '5', RETRY_MAX_DELAY_MS: '10', AIRTABLE_REQUEST_TIMEOUT_MS: '500' },
    logger,
  });
});
afterAll(() => worker?.stop());

it('a refused connection is recorded with its code and address, in the failed reason and the log', async () => {
  const [submission] = mixedSubmissions(1);
  await enqueueSubmissions(worker.queue, [submission!]);
  const id = submission!.submissionId;
  await eventually(async () => (await (await worker.queue.getJob(id))?.isFailed()) === true, { timeoutMs: 20_000 });
  const cause = `ECONNREFUSED 127.0.0.1:${port}`;
  const job = (await worker.queue.getJob(id))!;
  expect(job.failedReason).toContain(cause);
  const failed = await runOps(['failed', '--json'], { REDIS_URL: inject('redisUrl'), QUEUE_NAME: worker.queueName });
  expect(failed.json?.jobs?.[0]?.error, failed.stderr).toContain(cause);
  const logged = lines.filter((line) => line.includes(id));
  expect(logged.length).toBeGreaterThan(0);
  for (const line of logged) expect(line).toContain(cause);
  const everything = [job.failedReason, failed.stdout, ...lines].join('\n');
  expect(everything).not.toContain('patSecretToken');
}, 60_000);
