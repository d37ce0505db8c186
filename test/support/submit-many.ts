import { SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { validBody } from './valid-bodies.ts';

export type Answer = {
  /** The submission's unique email (its key in every store: no two requests share one). */
  email: string;
  kind: string;
  /** The HTTP status, or `hang` when no answer came within the client's timeout, or `error` (connection). */
  status: number | 'hang' | 'error';
  /** When the answer came, ms since the epoch. */
  at: number;
  /** How long the answer took. */
  ms: number;
};

/**
 * Sends mixed submissions (every endpoint in turn, each with its own email) to `urls` in turn, `concurrency`
 * at a time, until `count` are answered or `stop()` says so. Each request is bounded by `timeoutMs`; one
 * that runs over is a `hang`, never awaited further.
 */
export async function submitMany({
  urls,
  count,
  concurrency = 32,
  tag,
  timeoutMs = 10_000,
  stop = () => false,
}: {
  urls: string[];
  count: number;
  concurrency?: number;
  tag: string;
  timeoutMs?: number;
  stop?: () => boolean;
}): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  async function lane() {
    while (next < count && !stop()) {
      const i = next++;
      const endpoint = SUBMISSION_ENDPOINTS[i % SUBMISSION_ENDPOINTS.length]!;
      const body = validBody(endpoint.kind, `${tag}-${i}`);
      const email = String(body[endpoint.emailField]);
      let status: Answer['status'];
      const started = performance.now();
      try {
        const res = await fetch(`${urls[i % urls.length]}${endpoint.path}`, {
          method: endpoint.method,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch (err) {
        status = (err as Error).name === 'TimeoutError' ? 'hang' : 'error';
      }
      answers.push({ email, kind: endpoint.kind, status, at: Date.now(), ms: performance.now() - started });
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return answers;
}

/** How many answers had each status, e.g. `{ 200: 1990, 503: 10 }`. */
export function countStatuses(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

/** Emails answered 200 that the store does not hold, and those it holds more than once. */
export function compareDelivery(answers: Answer[], delivered: Map<string, number>) {
  const acknowledged = answers.filter((a) => a.status === 200).map((a) => a.email);
  return {
    acknowledged: acknowledged.length,
    lost: acknowledged.filter((email) => !delivered.has(email)),
    duplicated: [...delivered].filter(([, n]) => n > 1).map(([email]) => email),
  };
}
