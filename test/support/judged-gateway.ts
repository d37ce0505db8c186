import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '@forms/gateway';
import { ERROR_CODES, JOBS, type JobName } from '@forms/schemas';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import * as v from 'valibot';
import { documentOracle, type Operation, type Verdict } from './document-oracle.ts';
import type { EncodedForm } from './form-encoding.ts';
import { postRaw } from './post-raw.ts';
import { startTestGateway } from './test-gateway.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what must never be queued.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Every string in a job's data (JSON.stringify would escape the very characters looked for). */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(stringsOf);
}

/**
 * A gateway, the oracle made from the /openapi.json it serves, and its queue, for property tests: `send`
 * posts a raw body and returns what is wrong with the answer (nothing, when the gateway decided as the
 * document says, answered a 4xx with a code when it refused, and never a 5xx). `queued` checks what
 * reached the queue: one job per acknowledged body, each valid under its job schema and storable.
 */
export async function startJudgedGateway(redisUrl: string) {
  const queueName = `judged-${randomUUID()}`;
  // The per-client limit off: a property test sends thousands of bodies from one address, and a 429 judges nothing.
  const gateway: RunningGateway = await startTestGateway(
    redisUrl,
    { QUEUE_NAME: queueName, RATE_LIMIT_REQUESTS: '0' },
    { selfBaseUrl: true },
  );
  const doc = JSON.parse((await postRaw(`${gateway.url}/openapi.json`, { method: 'GET' })).text);
  const oracle = documentOracle(doc);
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection: redis });
  let acknowledged = 0;
  const tally = { accepted: 0, refused: 0, byStatus: {} as Record<number, number> };

  function send(op: Operation, raw: string): Promise<string[]> {
    return post(op, 'application/json', raw, oracle.judge(op, raw));
  }

  /**
   * A form post: judged as the document says when `read` (the object the form convention makes of it) is
   * given, else only held to "a 4xx with a code or a 200, never a 5xx" (a hostile form).
   */
  function sendForm(op: Operation, form: EncodedForm, read?: unknown): Promise<string[]> {
    const verdict = read === undefined ? undefined : oracle.judgeForm(op, form.body.length, read);
    return post(op, form.contentType, form.body, verdict);
  }

  async function post(
    op: Operation,
    type: string,
    raw: string | Buffer,
    verdict: Verdict | undefined,
  ): Promise<string[]> {
    const res = await postRaw(`${gateway.url}${op.path}`, {
      method: op.method,
      headers: { 'content-type': type },
      body: raw,
    });
    const { text } = res;
    tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
    const shown = typeof raw === 'string' ? raw : `(${type}) ${raw.toString('latin1')}`;
    const where = `${op.method} ${op.path} ${shown.length > 300 ? `${shown.slice(0, 300)}… (${shown.length} chars)` : shown}`;
    if (res.status === 200) {
      acknowledged++;
      tally.accepted++;
    } else tally.refused++;
    if (res.status >= 500) return [`${where}: ${res.status} ${text.slice(0, 300)}`];
    if (!verdict) return res.status === 200 ? [] : knownCode(where, res.status, text);
    if (verdict.accept && res.status !== 200)
      return [`${where}: the document accepts it, the gateway answered ${res.status} ${text.slice(0, 300)}`];
    if (!verdict.accept && res.status === 200)
      return [`${where}: the document refuses it (${verdict.reason}), the gateway answered 200`];
    if (!verdict.accept && res.status !== verdict.status)
      return [`${where}: expected ${verdict.status} (${verdict.reason}), got ${res.status} ${text.slice(0, 300)}`];
    return res.status === 200 ? [] : knownCode(where, res.status, text);
  }

  function knownCode(where: string, status: number, text: string): string[] {
    const body = JSON.parse(text) as { code?: string; error?: string; message?: string };
    const code = body.code ?? body.error;
    if (!code || !(code in ERROR_CODES) || !body.message)
      return [`${where}: a ${status} without a known code: ${text}`];
    return [];
  }

  async function queued(): Promise<string[]> {
    const problems: string[] = [];
    const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized']);
    if (jobs.length !== acknowledged) problems.push(`${acknowledged} acknowledged, ${jobs.length} jobs in the queue`);
    for (const job of jobs) {
      const schema = JOBS[job.name as JobName];
      if (!schema || !v.safeParse(schema, job.data).success)
        problems.push(`job ${job.name} does not parse under its schema: ${JSON.stringify(job.data).slice(0, 300)}`);
      if (stringsOf(job.data).some((text) => UNSTORABLE.test(text)))
        problems.push(`job ${job.id} holds NUL or a lone surrogate`);
      const known = Object.keys((schema as unknown as { entries: { data: { entries: object } } }).entries.data.entries);
      const data = (job.data as { data: Record<string, unknown> }).data;
      const unknown = Object.keys(data).filter((key) => !known.includes(key));
      if (unknown.length > 0 || Object.getPrototypeOf(data) !== Object.prototype)
        problems.push(`job ${job.id} holds unknown fields ${unknown.join(', ')}`);
    }
    return problems;
  }

  return {
    oracle,
    send,
    sendForm,
    queued,
    tally,
    async stop() {
      await gateway.stop();
      await queue.close();
      redis.disconnect();
    },
  };
}
