import { randomUUID } from 'node:crypto';
import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// A full run, gateway and worker as their own processes at debug level, through every endpoint, a bad
// input, a CV, CRM retries and a CRM refusal that quotes the email back: every log line is JSON, a request
// id follows one submission from gateway to worker, and no email, phone, name or CV byte is in any line.
const KEY = 'patLogsTest';
const BASE = `appLogs${Date.now().toString(36)}`;
const run = Date.now().toString(36);
let server: FakeAirtable;
let gateway: GatewayProcess;
let worker: WorkerProcess;
let queue: Queue;

beforeAll(async () => {
  server = await startFakeAirtable({ apiKey: KEY, rateLimit: { requests: 1000, windowMs: 1_000, lockoutMs: 1_000 } });
  const env = {
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `logs-${randomUUID()}`,
    LOG_LEVEL: 'debug',
    AIRTABLE_API_KEY: KEY,
    AIRTABLE_BASE_ID: BASE,
    AIRTABLE_ENDPOINT_URL: server.url,
    AIRTABLE_RATE_LIMIT: '200',
    // The schedule is shortened, so the lease a failed request leaves on its record (twice this timeout,
    // in case the request still lands) must be too, or each retry waits out 30 s of lease.
    AIRTABLE_REQUEST_TIMEOUT_MS: '250',
    RETRY_BASE_DELAY_MS: '5',
    RETRY_MAX_DELAY_MS: '20',
  };
  worker = await spawnWorker(env);
  gateway = await spawnGateway(env);
  queue = new Queue(env.QUEUE_NAME, { connection: { url: env.REDIS_URL } });
}, 60_000);

afterAll(async () => {
  for (const p of [gateway, worker]) if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
  await queue?.obliterate({ force: true });
  await queue?.close();
  await server?.close();
});

it('no email, phone, name or CV byte in any log line of a full run; one request id across both apps', async () => {
  const secrets: string[] = [];
  const personal = (i: number) => {
    const values = {
      name: `Zephyrine Quillfeather${run}${i}`,
      fullName: `Octavian Brightwater${run}${i}`,
      phoneNumber: `+44 7700 9${String(i).padStart(5, '0')}`,
      whatsappNumber: `+1 415 55${String(i).padStart(5, '0')}`,
      linkedin: `https://linkedin.com/in/quillfeather-${run}-${i}`,
      instagram: `@quill_${run}_${i}`,
    };
    secrets.push(...Object.values(values), values.phoneNumber.replace(/\D/g, ''));
    return values;
  };
  // The CRM: its first requests answer 503 (retries get logged), and creator records are refused with the
  // email and name quoted back, as some CRM errors do.
  let rolls = 0;
  server.faults.serverErrorRate = 0.5;
  server.faults.serverErrorAfterWrite = 0;
  server.faults.random = () => (rolls++ < 8 ? 0 : 0.99);
  server.faults.rejectRecord = (_table, fields) =>
    typeof fields.Instagram === 'string'
      ? { type: 'INVALID_VALUE_FOR_COLUMN', message: `Cannot accept "${fields.Email}" for ${fields.Name}` }
      : undefined;
  const sent: { requestId: string; status: number }[] = [];
  let i = 0;
  for (const endpoint of SUBMISSION_ENDPOINTS) {
    for (let copy = 0; copy < 2; copy++) {
      i++;
      const body: Record<string, unknown> = { ...validBody(endpoint.kind, `pii-${run}-${i}`) };
      const values = personal(i);
      for (const key of Object.keys(values) as (keyof typeof values)[]) if (key in body) body[key] = values[key];
      secrets.push(String(body.email ?? body.workEmail));
      if (endpoint.kind === 'careers-apply' && copy === 1) {
        const cv = Buffer.from(`%PDF-1.4\n% cv of ${run} with secret bytes QUILLFEATHER-CV-${run}\n%%EOF\n`);
        body.cvFile = {
          filename: `quillfeather-${run}.pdf`,
          contentType: 'application/pdf',
          data: cv.toString('base64'),
        };
        secrets.push(cv.toString('base64'), `QUILLFEATHER-CV-${run}`, `quillfeather-${run}.pdf`);
      }
      const requestId = `trace-${run}-${i}`;
      const res = await fetch(`${gateway.url}${endpoint.path}`, {
        method: endpoint.method,
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify(body),
      });
      sent.push({ requestId, status: res.status });
    }
  }
  expect(sent.every((s) => s.status === 200)).toBe(true);
  // A bad input that carries personal data, and a body that is not JSON.
  const badEmail = `zz-broken-${run}@@example`;
  secrets.push(badEmail);
  const bad = await fetch(`${gateway.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: badEmail, name: `Bad Quillfeather${run}` }),
  });
  expect(bad.status).toBe(400);

  await eventually(
    async () => {
      const c = await queue.getJobCounts('completed', 'failed');
      return (c.completed ?? 0) + (c.failed ?? 0) === sent.length;
    },
    { timeoutMs: 30_000 },
  );
  expect(await queue.getFailedCount()).toBe(2); // the two creator signups

  gateway.child.kill('SIGTERM');
  worker.child.kill('SIGTERM');
  await Promise.all([gateway.exited, worker.exited]);
  const lines = `${gateway.output()}${worker.output()}`.split('\n').filter((line) => line.trim() !== '');
  expect(lines.length).toBeGreaterThan(sent.length * 2); // debug: a request line and a job line or two each
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  const all = lines.join('\n').toLowerCase();
  const leaked = secrets.filter((secret) => all.includes(secret.toLowerCase()));
  if (leaked.length)
    console.log(lines.filter((l) => leaked.some((s) => l.toLowerCase().includes(s.toLowerCase()))).join('\n'));
  expect(leaked).toEqual([]);

  // The failure paths did log (so the check above covered them), with the CRM's code kept.
  const messages = lines.map((line) => JSON.parse(line));
  const finalFailures = messages.filter((l) => l.msg === 'delivery failed for good: in the failed set');
  expect(finalFailures).toHaveLength(2);
  expect(finalFailures[0].err).toContain('Airtable 422 INVALID_VALUE_FOR_COLUMN: [CRM text withheld');
  expect(messages.some((l) => l.msg === 'delivery failed; will retry')).toBe(true);

  // One grep follows a submission end to end.
  const traced = lines.filter((line) => line.includes(`"trace-${run}-1"`)).map((line) => JSON.parse(line));
  expect(traced.map((l) => l.app)).toEqual(expect.arrayContaining(['gateway', 'worker']));
  expect(traced.map((l) => l.msg)).toEqual(expect.arrayContaining(['request', 'delivered']));
}, 120_000);
