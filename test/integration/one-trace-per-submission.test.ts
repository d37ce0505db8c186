import { randomBytes, randomUUID } from 'node:crypto';
import { startTestS3, type TestS3 } from '@forms/local-services';
import { SUBMISSION_ENDPOINTS, type SubmissionKind } from '@forms/schemas';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';
import { openTestDatabase, sharedPostgresUrl, type TestDatabase } from '../support/crm-database.ts';
import { careersBody, PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { runOps } from '../support/ops-cli.ts';
import { formatTrace, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { type GatewayProcess, spawnGateway, spawnWorker, type WorkerProcess } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// Submissions of mixed kinds through two real pipelines (gateway and worker processes, as deployed), one
// writing to the local Airtable server and one to Postgres, all exporting to one OTLP/HTTP receiver: each
// submission must come out as exactly one trace holding its whole story, and nothing else may be sent.
const BASE = `appTrace${Date.now().toString(36)}`;
const KEY = 'patTraceTest';
const bucket = `trace-${randomUUID().slice(0, 8)}`;
const queues = { airtable: `trace-at-${randomUUID()}`, postgres: `trace-pg-${randomUUID()}` };
const SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 };

let receiver: OtlpReceiver;
let s3: TestS3;
let airtable: FakeAirtable;
let store: TestDatabase;
const gateways: Partial<Record<keyof typeof queues, GatewayProcess>> = {};
const workers: Partial<Record<keyof typeof queues, WorkerProcess>> = {};
const opened: Queue[] = [];

/** What the test sent: the submission, the request id it sent, and every personal value in its body. */
type Sent = {
  side: keyof typeof queues;
  kind: SubmissionKind;
  submissionId: string;
  requestId: string;
  pii: string[];
  /** The caller's trace, when the request carried a W3C `traceparent`. */
  caller?: { traceId: string; spanId: string };
};

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  s3 = await startTestS3();
  airtable = await startFakeAirtable({
    apiKey: KEY,
    attachmentFields: { Applications: ['CV'] },
    attachmentTimeoutMs: 3_000,
  });
  store = await openTestDatabase({ shareable: true, adminUrl: await sharedPostgresUrl() });
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    // Short batch delays so spans arrive while the test looks; the standard variables, as an operator sets them.
    OTEL_BSP_SCHEDULE_DELAY: '50',
  };
  const common = { REDIS_URL: inject('redisUrl'), RATE_LIMIT_REQUESTS: '0', ...s3.env(bucket), ...tracing };
  // A one-second lock makes the stalled-job check run every second: it must start no trace (bullmq#4731).
  const worker = { RETRY_BASE_DELAY_MS: '50', RETRY_MAX_DELAY_MS: '200', WORKER_LOCK_DURATION_MS: '1000' };
  const [gwA, wkA, gwB, wkB] = await Promise.all([
    spawnGateway({ ...common, QUEUE_NAME: queues.airtable }),
    spawnWorker({
      ...common,
      ...worker,
      QUEUE_NAME: queues.airtable,
      AIRTABLE_API_KEY: KEY,
      AIRTABLE_BASE_ID: BASE,
      AIRTABLE_ENDPOINT_URL: airtable.url,
      AIRTABLE_RATE_LIMIT: '20',
      // A write whose request failed waits out its record's lease (twice this) before it is sent again.
      AIRTABLE_REQUEST_TIMEOUT_MS: '1000',
      // The pause after a 429 that holds the rest back until they can share a request (below).
      AIRTABLE_LOCKOUT_MS: '3000',
    }),
    spawnGateway({ ...common, QUEUE_NAME: queues.postgres }),
    spawnWorker({ ...common, ...worker, ...store.workerEnv, QUEUE_NAME: queues.postgres }),
  ]);
  Object.assign(gateways, { airtable: gwA, postgres: gwB });
  Object.assign(workers, { airtable: wkA, postgres: wkB });
}, 120_000);

afterAll(async () => {
  for (const child of [...Object.values(gateways), ...Object.values(workers)])
    if (child?.child.exitCode === null) child.child.kill('SIGKILL');
  for (const queue of opened) {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
  }
  await airtable?.close();
  await s3?.stop();
  await store?.close();
  await receiver?.close();
});

describe('one trace per submission', () => {
  it('exports exactly one trace per submission, with its span chain and attributes, and no PII', async () => {
    const sent: Sent[] = [];
    const queue = (side: keyof typeof queues) => {
      const q = new Queue(queues[side], { connection: { url: inject('redisUrl') } });
      opened.push(q);
      return q;
    };
    const airtableQueue = queue('airtable');
    const postgresQueue = queue('postgres');

    // Fails once: the first Airtable request is a 503, so attempt 1 fails and attempt 2 writes it.
    airtable.faults.script = [{ status: 503, type: 'SERVICE_UNAVAILABLE' }];
    const retried = await submit(sent, 'airtable', 'creator-signup');
    await eventually(async () => (await airtableQueue.getJobState(retried.submissionId)) === 'completed', {
      timeoutMs: 20_000,
    });

    // Fails for good (a 422 for its record), then an operator replays it with the ops CLI.
    const replayTag = `replay${randomUUID().slice(0, 8)}`;
    airtable.faults.rejectRecord = (_table, fields) =>
      JSON.stringify(fields).includes(replayTag) ? { type: 'INVALID_VALUE_FOR_COLUMN', message: 'refused' } : undefined;
    const replayed = await submit(sent, 'airtable', 'usa-signup', replayTag);
    await eventually(async () => (await airtableQueue.getJobState(replayed.submissionId)) === 'failed', {
      timeoutMs: 20_000,
    });
    airtable.faults.rejectRecord = undefined;
    const ops = await runOps(['replay', replayed.submissionId, '--json'], {
      REDIS_URL: inject('redisUrl'),
      QUEUE_NAME: queues.airtable,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(ops.code, ops.stderr).toBe(0);
    expect(ops.json.replayed).toBe(1);

    // The rest at once; one carries a CV. The first request they make is answered 429, and the base's
    // pause holds the others until they share a request: without it, a slow machine's worker takes them
    // one by one, each alone in its own request.
    airtable.faults.script = [{ status: 429, type: 'RATE_LIMIT_REACHED' }];
    const airtableKinds: SubmissionKind[] = [
      'contact',
      'contact-update',
      'partner-webinar',
      'cpa-signup',
      'usa-signup',
    ];
    const postgresKinds: SubmissionKind[] = [
      'contact',
      'creator-signup',
      'partner-webinar',
      'cdg-signup',
      'sfa-signup',
    ];
    await Promise.all([
      ...airtableKinds.map((kind) => submit(sent, 'airtable', kind)),
      submit(sent, 'airtable', 'careers-apply', undefined, true),
      ...postgresKinds.map((kind) => submit(sent, 'postgres', kind)),
      // A site that traces its own backend: the submission continues the caller's trace.
      submit(sent, 'postgres', 'usa-signup', undefined, false, { traceId: randomHex(16), spanId: randomHex(8) }),
    ]);
    const expected = {
      airtable: sent.filter((s) => s.side === 'airtable'),
      postgres: sent.filter((s) => s.side === 'postgres'),
    };
    for (const [side, q] of [
      ['airtable', airtableQueue],
      ['postgres', postgresQueue],
    ] as const)
      await eventually(async () => (await q.getCompletedCount()) === expected[side].length, { timeoutMs: 30_000 });

    // Every submission's trace is complete once its last attempt's consumer span has arrived.
    await eventually(
      async () => sent.every((s) => spansOf(s).some((span) => span.attributes['submission.outcome'] === 'delivered')),
      { timeoutMs: 15_000 },
    );
    // Stopped cleanly, each process flushes what it still holds; nothing may arrive outside the traces.
    for (const child of [...Object.values(gateways), ...Object.values(workers)]) {
      child!.child.kill('SIGTERM');
      expect(await child!.exited).toBe(0);
    }

    // Delivered: N records in the local Airtable server and in Postgres.
    const tables = airtable.tables(BASE);
    const airtableIds = tables.flatMap((t) => airtable.records(BASE, t).map((r) => String(r.fields['Submission ID'])));
    for (const s of expected.airtable) expect(airtableIds).toContain(s.submissionId);
    const db = await store.read();
    const { rows } = await db.query<{ id: string }>('SELECT id FROM submissions');
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(expected.postgres.map((s) => s.submissionId)));

    // Exactly N submission traces, plus the ops run's: no other trace (no housekeeping, no stalled checks).
    const spans = receiver.spans;
    const traceIds = new Set(spans.map((s) => s.traceId));
    const submissionTraces = new Set(sent.map((s) => traceOf(s)));
    expect(submissionTraces.size).toBe(sent.length);
    const opsTrace = spans.find((s) => s.service === 'forms-ops' && s.name === 'ops replay')?.traceId;
    expect(opsTrace).toBeDefined();
    expect(traceIds).toEqual(new Set([...submissionTraces, opsTrace]));
    // BullMQ's housekeeping is in no trace at all, not even grown into a submission's (bullmq#4731).
    const housekeeping = /^(getNextJob|moveStalledJobsToWait|startStalledCheckTimer|extendLocks|close|pause|resume)\b/;
    expect(spans.filter((span) => housekeeping.test(span.name)).map((span) => span.name)).toEqual([]);

    for (const s of sent) {
      const trace = spans.filter((span) => span.traceId === traceOf(s));
      const one = (name: string | RegExp, where: (span: ReceivedSpan) => boolean = () => true) => {
        const found = trace.filter(
          (span) => (typeof name === 'string' ? span.name === name : name.test(span.name)) && where(span),
        );
        expect(found, `${s.kind} ${s.submissionId}: ${name}`).toHaveLength(1);
        return found[0]!;
      };
      const path = endpointOf(s.kind).path;
      const server = one(`${endpointOf(s.kind).method} ${path}`);
      expect(server).toMatchObject({ service: 'forms-gateway', kind: SPAN_KIND.server });
      expect(server.parentSpanId).toBe(s.caller?.spanId);
      if (s.caller) expect(server.traceId).toBe(s.caller.traceId);
      expect(server.attributes).toMatchObject({
        'submission.id': s.submissionId,
        'submission.kind': s.kind,
        'request.id': s.requestId,
        'http.route': path,
        'http.response.status_code': 200,
      });
      // The claim's and the add's round trips are timed on the request's span, not recorded as spans of their
      // own: the job carries the request span's context.
      if (endpointOf(s.kind).contact) expect(server.attributes['submission.claim_ms']).toBeGreaterThan(0);
      expect(server.attributes['submission.enqueue_ms']).toBeGreaterThan(0);
      expect(trace.filter((span) => span.service === 'forms-gateway' && span.kind === SPAN_KIND.producer)).toEqual([]);

      // One consumer span per attempt, each a child of the request: one span tree per attempt.
      const attempts = trace
        .filter((span) => span.name.startsWith('process '))
        .sort((a, b) => Number(a.attributes['submission.attempt']) - Number(b.attributes['submission.attempt']));
      const outcomes =
        s === retried ? ['retrying', 'delivered'] : s === replayed ? ['failed', 'delivered'] : ['delivered'];
      expect(attempts.map((a) => a.attributes['submission.outcome'])).toEqual(outcomes);
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({
          service: 'forms-worker',
          kind: SPAN_KIND.consumer,
          parentSpanId: server.spanId,
        });
        expect(attempt.attributes).toMatchObject({
          'submission.id': s.submissionId,
          'submission.kind': s.kind,
          'request.id': s.requestId,
        });
        const writes = trace.filter((span) => span.name === 'crm.write' && span.parentSpanId === attempt.spanId);
        expect(writes).toHaveLength(1);
        expect(writes[0]!.attributes['crm.system']).toBe(s.side === 'airtable' ? 'airtable' : db.kind);
      }
      // The replay's attempt counts from one again (its attempts were reset), in the same trace.
      if (s === replayed) expect(attempts.map((a) => a.attributes['submission.attempt'])).toEqual([1, 1]);
      if (s === retried) expect(attempts.map((a) => a.attributes['submission.attempt'])).toEqual([1, 2]);

      if (s.side === 'airtable') {
        // Each write's Airtable request links to it; the request sits in the trace of its batch's first write.
        for (const write of trace.filter((span) => span.name === 'crm.write')) {
          const requests = spans.filter(
            (span) => span.name === 'airtable.upsert' && span.links.some((l) => l.spanId === write.spanId),
          );
          expect(requests.length, `${s.kind}: the Airtable request of its write`).toBeGreaterThanOrEqual(1);
          for (const request of requests) expect(request.kind).toBe(SPAN_KIND.client);
        }
      }
      if (s.kind === 'careers-apply') {
        expect(one('s3.put staged-cv').parentSpanId).toBe(server.spanId);
        const finalise = one('cv.finalise');
        expect(attempts.map((a) => a.spanId)).toContain(finalise.parentSpanId);
        expect(one('s3.put cv').parentSpanId).toBe(finalise.spanId);
      }
    }
    // The retried submission's first request (the 503), the 429, and the batch that carried several submissions.
    const upserts = spans.filter((span) => span.name === 'airtable.upsert');
    const statuses = upserts.map((span) => span.attributes['http.response.status_code']);
    expect(statuses).toContain(503);
    expect(statuses).toContain(429);
    expect(Math.max(...upserts.map((span) => span.links.length))).toBeGreaterThan(1);
    // The ops run links to the trace of the submission it replayed.
    const replaySpan = spans.find((span) => span.name === 'ops.replay');
    expect(replaySpan?.traceId).toBe(opsTrace);
    expect(replaySpan?.links.map((l) => l.traceId)).toEqual([traceOf(replayed)]);

    // No email, phone or name anywhere: span names, attributes, events.
    const exported = JSON.stringify(spans);
    const personal = [...new Set(sent.flatMap((s) => s.pii))];
    expect(personal.length).toBeGreaterThan(20);
    for (const value of personal) expect(exported, value).not.toContain(value);
    console.log(
      `${sent.length} submissions, ${traceIds.size} traces (one is the ops run), ${spans.length} spans, ${upserts.length} Airtable requests`,
    );
    // The traces docs/tracing.md reads: a careers application into Airtable, and the submission retried.
    const careers = sent.find((s) => s.side === 'airtable' && s.kind === 'careers-apply')!;
    for (const s of [careers, retried])
      console.log(
        formatTrace(
          spans.filter((span) => span.traceId === traceOf(s)),
          SHOWN_ATTRIBUTES,
          { queue: queues.airtable, shownAs: 'submissions' },
        ),
      );
  }, 180_000);
});

/** The attributes the guide's example traces show. */
const SHOWN_ATTRIBUTES = [
  'submission.kind',
  'submission.claim_ms',
  'submission.enqueue_ms',
  'cv.bytes',
  'submission.attempt',
  'submission.outcome',
  'crm.system',
  'airtable.records',
  'http.response.status_code',
];

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function endpointOf(kind: SubmissionKind) {
  return SUBMISSION_ENDPOINTS.find((e) => e.kind === kind)!;
}

/** Sends one submission with its own request id; records its ids and the personal values it carried. */
async function submit(
  sent: Sent[],
  side: keyof typeof queues,
  kind: SubmissionKind,
  tag = `t${randomUUID().slice(0, 8)}`,
  withCv = false,
  caller?: { traceId: string; spanId: string },
): Promise<Sent> {
  const pdf = samplePdf(256);
  const body = withCv ? careersBody(tag, pdf, PDF_TYPE, `${tag} Grace Hopper CV.pdf`) : validBody(kind, tag);
  const requestId = `req-${randomUUID()}`;
  const endpoint = endpointOf(kind);
  const res = await fetch(`${gateways[side]!.url}${endpoint.path}`, {
    method: endpoint.method,
    headers: {
      'content-type': 'application/json',
      'x-request-id': requestId,
      ...(caller ? { traceparent: `00-${caller.traceId}-${caller.spanId}-01` } : {}),
    },
    body: JSON.stringify(body),
  });
  expect(res.status, `${kind}: ${await res.clone().text()}`).toBe(200);
  const answer = (await res.json()) as { recordId?: string };
  // The answer names the submission (or, for contacts, the contact); the job that carries it names both.
  const q = new Queue(queues[side], { connection: { url: inject('redisUrl') } });
  opened.push(q);
  let submissionId: string | undefined;
  await eventually(async () => {
    const jobs = await q.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
    submissionId = jobs.find((j) => j.data.requestId === requestId)?.id;
    return submissionId !== undefined;
  });
  expect(answer).toBeDefined();
  const pii = personalValues(body);
  if (withCv) pii.push(pdf.toString('base64').slice(0, 40));
  const entry: Sent = { side, kind, submissionId: submissionId!, requestId, pii, ...(caller ? { caller } : {}) };
  sent.push(entry);
  return entry;
}

/** Every string of a body that is personal: emails, phones, names (and a CV's file name). */
function personalValues(body: Record<string, unknown>): string[] {
  const personal = /email|name|phone|whatsapp|instagram|tiktok|youtube|linkedin|^x$|cvFile/i;
  return Object.entries(body).flatMap(([key, value]) => {
    if (!personal.test(key)) return [];
    if (key === 'cvFile') return [(value as { filename: string }).filename];
    return typeof value === 'string' && value.length >= 3 ? [value] : [];
  });
}

function spansOf(s: Sent): ReceivedSpan[] {
  return receiver.spans.filter((span) => span.attributes['submission.id'] === s.submissionId);
}

/** The trace of a submission: the one its gateway span started. */
function traceOf(s: Sent): string {
  const server = receiver.spans.filter(
    (span) =>
      span.service === 'forms-gateway' &&
      span.kind === SPAN_KIND.server &&
      span.attributes['submission.id'] === s.submissionId,
  );
  expect(server, s.submissionId).toHaveLength(1);
  return server[0]!.traceId;
}
