import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresCrm, loadConfig, startWorker } from '@forms/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { type Siteverify, startSiteverify } from '../support/siteverify-server.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// The judge reaches one verdict per submission: a CRM write that fails on the first attempt is retried
// without judging again. A challenge token is single use, so a second siteverify would answer "used before"
// and hold a person the first verdict let through.
let siteverify: Siteverify;
let pipeline: Pipeline;
let failures = 1;

beforeAll(async () => {
  siteverify = await startSiteverify('turnstile', 'retry-secret');
  const rules = join(mkdtempSync(join(tmpdir(), 'retry-')), 'rules.json');
  writeFileSync(rules, JSON.stringify({ contact: { challenge: 'required' } }));
  pipeline = await startPipeline(
    {
      SPAM_RULES_FILE: rules,
      CHALLENGE_PROVIDER: 'turnstile',
      CHALLENGE_SECRET: 'retry-secret',
      CHALLENGE_VERIFY_URL: siteverify.url,
      RETRY_BASE_DELAY_MS: '50',
    },
    { withWorker: false },
  );
  // The real Postgres CRM, its first write refused as a CRM outage would (a retryable error).
  const crm = createPostgresCrm(pipeline.db);
  const flaky = {
    ...crm,
    deliver: (submission: Parameters<typeof crm.deliver>[0]) =>
      failures-- > 0 ? Promise.reject(new Error('CRM unavailable')) : crm.deliver(submission),
  };
  pipeline.worker = await startWorker(loadConfig(pipeline.env), pino({ level: 'silent' }), { crm: flaky });
});
afterAll(async () => {
  await pipeline?.stop();
  await siteverify?.stop();
});

it('a CRM write retried after a fault is not judged again: one siteverify call, delivered once', async () => {
  const res = await fetch(`${pipeline.gateway.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...validBody('contact', `r-${randomUUID()}`), 'cf-turnstile-response': siteverify.issue() }),
  });
  expect(res.status).toBe(200);
  const { recordId } = (await res.json()) as { recordId: string };
  await eventually(
    async () =>
      (await pipeline.db.query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE id = $1', [recordId]))
        .rows[0]!.n === 1,
  );
  expect(siteverify.requests).toHaveLength(1);
  // The row is committed before BullMQ moves the job to completed (once the handler has returned): a read of
  // the completed jobs right after the row appeared once found none (a fresh-clone CI run).
  let job: Awaited<ReturnType<typeof pipeline.queue.getJobs>>[number] | undefined;
  await eventually(async () => {
    [job] = await pipeline.queue.getJobs(['completed']);
    return job !== undefined;
  });
  expect(job!.attemptsMade).toBe(2);
  // The verdict in the inputs' place: no token, address or user agent left on the job.
  expect(job!.data.judge).toBeUndefined();
  expect(job!.data.judgement).toMatchObject({ reasons: [] });
  expect(job!.data.judgement).not.toHaveProperty('client');
});
