import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Answer, hangUp, json, scriptedServer } from './scripted-server.ts';
import { sendWithRetry } from './send-with-retry.ts';

const unavailable = (headers: Record<string, string> = {}) =>
  json(503, { error: 'queue_unavailable', code: 'QUEUE_UNAVAILABLE', message: 'not recorded' }, headers);

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await close?.();
  close = undefined;
});

async function serve(answers: Answer[]) {
  const server = await scriptedServer(answers);
  close = server.close;
  return server;
}

const call = (url: string) => ({ url: `${url}/api/contact`, method: 'POST', body: '{"email":"a@acme.io"}' });

describe('sendWithRetry against a real HTTP server', () => {
  it('retries 5xx, 429 and dropped connections with the same Idempotency-Key, then succeeds', async () => {
    const server = await serve([unavailable(), json(500, {}), json(429, {}), hangUp, json(200, { success: true })]);
    const result = await sendWithRetry({ ...call(server.url), idempotencyKey: 'key-1' }, { baseDelayMs: 10 });
    expect(result).toMatchObject({ ok: true, status: 200, data: { success: true }, attempts: 5 });
    expect(server.seen.map((s) => s.headers['idempotency-key'])).toEqual(Array(5).fill('key-1'));
    expect(server.seen.every((s) => s.body === '{"email":"a@acme.io"}')).toBe(true);
  });

  it('never retries a 4xx, and hands back its code and field', async () => {
    const body = { error: 'work_email_required', code: 'WORK_EMAIL_REQUIRED', message: 'work', field: 'email' };
    const server = await serve([json(400, body)]);
    const result = await sendWithRetry(call(server.url), { baseDelayMs: 10 });
    expect(server.seen).toHaveLength(1);
    expect(result).toEqual({
      ok: false,
      attempts: 1,
      idempotencyKey: undefined,
      error: { kind: 'rejected', status: 400, code: 'WORK_EMAIL_REQUIRED', message: 'work', field: 'email' },
    });
  });

  it("reads careers-apply's {error, message, field} answer the same way", async () => {
    const server = await serve([json(413, { error: 'CV_TOO_LARGE', message: 'too big', field: 'cvFile.data' })]);
    const result = await sendWithRetry(call(server.url));
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'rejected', status: 413, code: 'CV_TOO_LARGE', field: 'cvFile.data' },
    });
  });
});

/**
 * The waits, at fake time: vitest's fake timers drive the backoff, and a fetch answering from a script
 * records the (fake) time of each attempt, so every gap is exact and nothing depends on how busy the
 * machine is.
 */
describe('sendWithRetry in time', () => {
  type Step = number | { status: number; retryAfter?: string } | 'hang';
  function scriptedFetch(steps: Step[], fallback: Step = 503) {
    const at: number[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      at.push(Date.now());
      const step = steps.shift() ?? fallback;
      if (step === 'hang')
        return new Promise((_, reject) =>
          init.signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        );
      const { status, retryAfter } = typeof step === 'number' ? { status: step, retryAfter: undefined } : step;
      return new Response(JSON.stringify({ code: status === 503 ? 'QUEUE_UNAVAILABLE' : 'OK' }), {
        status,
        headers: retryAfter ? { 'retry-after': retryAfter } : {},
      });
    }) as typeof globalThis.fetch;
    return { fetch, at, gaps: () => at.slice(1).map((t, i) => t - at[i]!) };
  }
  /** Runs `send` to its end on fake time; returns its result and the fake time it took. */
  async function onFakeTime<T>(send: () => Promise<T>) {
    const started = Date.now();
    const pending = send();
    await vi.runAllTimersAsync();
    return { result: await pending, tookMs: Date.now() - started };
  }
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('backs off exponentially with full jitter, capped', async () => {
    // With Math.random at its top the waits are (0.999 of) the whole steps: 1, 2, 4 s, then the 5 s cap.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const top = scriptedFetch([]);
    await onFakeTime(() =>
      sendWithRetry(call('http://x'), { fetch: top.fetch, baseDelayMs: 1_000, maxDelayMs: 5_000, maxAttempts: 5 }),
    );
    expect(top.gaps()).toEqual([999, 1_998, 3_996, 4_995]);
    // With Math.random at 0 there is no wait at all: the jitter is full, from zero.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const bottom = scriptedFetch([]);
    await onFakeTime(() =>
      sendWithRetry(call('http://x'), { fetch: bottom.fetch, baseDelayMs: 1_000, maxAttempts: 3 }),
    );
    expect(bottom.gaps()).toEqual([0, 0]);
  });

  it('waits at least Retry-After before the next attempt', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const script = scriptedFetch([{ status: 503, retryAfter: '1' }, 200]);
    const { result } = await onFakeTime(() => sendWithRetry(call('http://x'), { fetch: script.fetch }));
    expect(result.ok).toBe(true);
    expect(script.gaps()).toEqual([1_000]);
  });

  it('gives up at once when Retry-After reaches past the deadline, and says how long to wait', async () => {
    const script = scriptedFetch([{ status: 503, retryAfter: '30' }]);
    const { result, tookMs } = await onFakeTime(() =>
      sendWithRetry(call('http://x'), { fetch: script.fetch, deadlineMs: 5_000 }),
    );
    expect(tookMs).toBe(0); // not the 5 s deadline, nor the 30 s
    expect(script.at).toHaveLength(1);
    expect(result).toMatchObject({
      ok: false,
      attempts: 1,
      error: { kind: 'unavailable', status: 503, code: 'QUEUE_UNAVAILABLE', retryAfterMs: 30_000 },
    });
  });

  it('stops at the deadline, whether the server keeps failing or hangs', async () => {
    const failing = scriptedFetch([]);
    let run = await onFakeTime(() =>
      sendWithRetry(call('http://x'), { fetch: failing.fetch, deadlineMs: 600, baseDelayMs: 20, maxAttempts: 100 }),
    );
    expect(run.tookMs).toBeLessThan(600);
    expect(run.result).toMatchObject({ ok: false, error: { kind: 'unavailable', status: 503 } });
    expect(run.result.attempts).toBeGreaterThan(2);

    const hung = scriptedFetch(['hang']);
    run = await onFakeTime(() => sendWithRetry(call('http://x'), { fetch: hung.fetch, deadlineMs: 400 }));
    expect(run.tookMs).toBe(400);
    expect(run.result).toMatchObject({ ok: false, attempts: 1, error: { kind: 'unavailable' } });
  });

  it('stops when aborted: during an attempt, during a wait, and before the first', async () => {
    const hung = scriptedFetch(['hang']);
    const duringAttempt = new AbortController();
    setTimeout(() => duringAttempt.abort(), 100);
    let run = await onFakeTime(() =>
      sendWithRetry(call('http://x'), { fetch: hung.fetch, signal: duringAttempt.signal }),
    );
    expect(run).toEqual({
      result: expect.objectContaining({ ok: false, attempts: 1, error: expect.objectContaining({ kind: 'aborted' }) }),
      tookMs: 100,
    });

    const failing = scriptedFetch([{ status: 503, retryAfter: '5' }]);
    const duringWait = new AbortController();
    setTimeout(() => duringWait.abort(), 200);
    run = await onFakeTime(() => sendWithRetry(call('http://x'), { fetch: failing.fetch, signal: duringWait.signal }));
    expect(run.tookMs).toBe(200); // aborted at 200 ms, not after Retry-After's 5 s
    expect(run.result).toMatchObject({ ok: false, attempts: 1, error: { kind: 'aborted' } });
    expect(failing.at).toHaveLength(1);

    const before = await sendWithRetry(call('http://x'), { fetch: failing.fetch, signal: AbortSignal.abort() });
    expect(before).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(failing.at).toHaveLength(1);
  });
});
