import { randomUUID } from 'node:crypto';
import { sleep } from './wait.ts';
/** One creator-signup sent under load, and what became of it. */
export type Sent = {
  email: string;
  status: number | undefined;
  /** The submission id answered (creator-signup's recordId), on 200. */
  recordId: string | undefined;
  retryAfter: string | null;
  ms: number;
  /** When it was sent (`performance.now()`). */
  at: number;
  /** Why no HTTP answer came: undici's cause code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET …). */
  error: string | undefined;
};

/** Posts one creator-signup for `email` and says what became of it (never throws). */
export async function sendCreator(url: string, email: string): Promise<Sent> {
  const started = performance.now();
  const entry: Sent = {
    email,
    status: undefined,
    recordId: undefined,
    retryAfter: null,
    ms: 0,
    at: started,
    error: undefined,
  };
  try {
    const res = await fetch(`${url}/api/creator-signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, name: 'Creator' }),
      signal: AbortSignal.timeout(10_000),
    });
    entry.status = res.status;
    entry.retryAfter = res.headers.get('retry-after');
    const body = (await res.json()) as { recordId?: string };
    entry.recordId = body.recordId;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    entry.error = cause?.code ?? (err as Error).name;
  }
  entry.ms = performance.now() - started;
  return entry;
}

/**
 * Sends creator-signups from `lanes` concurrent clients, back to back, until `until()` says stop or `max`
 * have been sent (bounded both ways); each email is unique, so each answer maps to one submission.
 */
export async function sendCreatorsUnderLoad(
  url: () => string,
  { lanes, max, until, tag }: { lanes: number; max: number; until: () => boolean; tag: string },
): Promise<Sent[]> {
  const sent: Sent[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (!until() && n < max) {
        const entry = await sendCreator(url(), `${tag}-${n++}@creators.example`);
        // A refused connection returns at once; do not spin on a server that is gone.
        if (entry.error) await sleep(20);
        sent.push(entry);
      }
    }),
  );
  return sent;
}

/**
 * Sends creator-signups at a steady `perSecond` for `durationMs` (bounded: one a tick, a fixed count), as
 * a site's traffic during a launch would, and returns what became of each (`acknowledgedIds` for the 200s).
 */
export async function submitAtRate(
  url: string,
  { perSecond, durationMs }: { perSecond: number; durationMs: number },
): Promise<Sent[]> {
  const tag = `steady-${randomUUID()}`;
  const total = Math.round((perSecond * durationMs) / 1000);
  const started = performance.now();
  const answers: Promise<Sent>[] = [];
  for (let i = 0; i < total; i++) {
    const waitMs = started + (i * 1000) / perSecond - performance.now();
    if (waitMs > 0) await sleep(waitMs);
    answers.push(sendCreator(url, `${tag}-${i}@creators.example`));
  }
  return Promise.all(answers);
}

/** How `sent` was answered, for a failure's message: a count per status (or transport error). */
export function answerCounts(sent: Sent[]): string {
  const counts: Record<string, number> = {};
  for (const s of sent) {
    const key = s.status === undefined ? `error ${s.error}` : String(s.status);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return JSON.stringify(counts);
}

/** The submission ids answered 200. */
export function acknowledgedIds(sent: Sent[]): Set<string> {
  return new Set(sent.filter((s) => s.status === 200).map((s) => s.recordId!));
}
