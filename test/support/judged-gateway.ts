import { randomUUID } from 'node:crypto';
import type { RunningGateway } from '@forms/gateway';
import { ERROR_CODES, JOBS, type JobName } from '@forms/schemas';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import * as v from 'valibot';
import { documentOracle, type Operation } from './document-oracle.ts';
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
  const gateway: RunningGateway = await startTestGateway(redisUrl, { QUEUE_NAME: queueName }, { selfBaseUrl: true });
  const doc = JSON.parse((await postRaw(`${gateway.url}/openapi.json`, { method: 'GET' })).text);
  const oracle = documentOracle(doc);
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection: redis });
  let acknowledged = 0;
  const tally = { accepted: 0, refused: 0, byStatus: {} as Record<number, number> };

  async function send(op: Operation, raw: string): Promise<string[]> {
    const verdict = oracle.judge(op, raw);
    const res = await postRaw(`${gateway.url}${op.path}`, {
      method: op.method,
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    const { text } = res;
    tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
    const where = `${op.method} ${op.path} ${raw.length > 300 ? `${raw.slice(0, 300)}… (${raw.length} chars)` : raw}`;
    if (res.status === 200) {
      acknowledged++;
      tally.accepted++;
    } else tally.refused++;
    if (res.status >= 500) return [`${where}: ${res.status} ${text.slice(0, 300)}`];
    if (verdict.accept && res.status !== 200)
      return [`${where}: the document accepts it, the gateway answered ${res.status} ${text.slice(0, 300)}`];
    if (!verdict.accept && res.status === 200)
      return [`${where}: the document refuses it (${verdict.reason}), the gateway answered 200`];
    if (!verdict.accept && res.status !== verdict.status)
      return [`${where}: expected ${verdict.status} (${verdict.reason}), got ${res.status} ${text.slice(0, 300)}`];
    if (res.status !== 200) {
      const body = JSON.parse(text) as { code?: string; error?: string; message?: string };
      const code = body.code ?? body.error;
      if (!code || !(code in ERROR_CODES) || !body.message)
        return [`${where}: a ${res.status} without a known code: ${text}`];
    }
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
    queued,
    tally,
    async stop() {
      await gateway.stop();
      await queue.close();
      redis.disconnect();
    },
  };
}
