import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Answer, hang, hangUp, json, scriptedServer } from './scripted-server.ts';
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

  it('backs off exponentially with full jitter, capped', async () => {
    // With Math.random at its top the waits are the whole steps: 50, 100, 200, then the 250 ms cap. A wait
    // is never shorter than its step, so the lower bounds show the doubling. Only the cap needs an upper
    // bound: uncapped, the last wait would be 400 ms or more. (Tighter upper bounds on every gap failed in
    // CI, where other suites share the cores: a 40 ms step once measured 259 ms.)
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const server = await serve(Array(5).fill(unavailable()));
    await sendWithRetry(call(server.url), { baseDelayMs: 50, maxDelayMs: 250, maxAttempts: 5 });
    const gaps = server.seen.slice(1).map((s, i) => s.at - server.seen[i]!.at);
    expect(gaps).toHaveLength(4);
    for (const [i, step] of [50, 100, 200, 250].entries()) expect(gaps[i]).toBeGreaterThanOrEqual(step * 0.999 - 2);
    expect(gaps[3]).toBeLessThan(400);

    // With Math.random at 0 there is no wait at all: the jitter is full, from zero.
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const again = await serve(Array(3).fill(unavailable()));
    await sendWithRetry(call(again.url), { baseDelayMs: 1_000, maxAttempts: 3 });
    expect(again.seen.at(-1)!.at - again.seen[0]!.at).toBeLessThan(1_500); // two waits of 1 s without jitter
  });

  it('waits at least Retry-After before the next attempt', async () => {
    const server = await serve([unavailable({ 'retry-after': '1' }), json(200, { success: true })]);
    const result = await sendWithRetry(call(server.url), { baseDelayMs: 10 });
    expect(result.ok).toBe(true);
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(995);
  });

  it('gives up at once when Retry-After reaches past the deadline, and says how long to wait', async () => {
    const server = await serve([unavailable({ 'retry-after': '30' })]);
    const started = performance.now();
    const result = await sendWithRetry(call(server.url), { deadlineMs: 5_000 });
    expect(performance.now() - started).toBeLessThan(2_000); // not the 5 s deadline, nor the 30 s
    expect(server.seen).toHaveLength(1);
    expect(result).toMatchObject({
      ok: false,
      attempts: 1,
      error: { kind: 'unavailable', status: 503, code: 'QUEUE_UNAVAILABLE', retryAfterMs: 30_000 },
    });
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

  it('stops at the deadline, whether the server keeps failing or hangs', async () => {
    const always = await scriptedServer([], unavailable());
    close = always.close;
    let started = performance.now();
    let result = await sendWithRetry(call(always.url), { deadlineMs: 600, baseDelayMs: 20, maxAttempts: 100 });
    expect(performance.now() - started).toBeLessThan(1_500);
    // The last error is the last 503, or the attempt the deadline cut short (no status): either way it is
    // `unavailable`, after several attempts.
    expect(result).toMatchObject({ ok: false, error: { kind: 'unavailable' } });
    expect(result.attempts).toBeGreaterThan(2);
    await close();

    const hung = await scriptedServer([], hang);
    close = hung.close;
    started = performance.now();
    result = await sendWithRetry(call(hung.url), { deadlineMs: 400 });
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(result).toMatchObject({ ok: false, attempts: 1, error: { kind: 'unavailable' } });
  });

  it('stops when aborted: during an attempt, during a wait, and before the first', async () => {
    const hung = await serve([hang]);
    const duringAttempt = new AbortController();
    setTimeout(() => duringAttempt.abort(), 100);
    expect(await sendWithRetry(call(hung.url), { signal: duringAttempt.signal })).toMatchObject({
      ok: false,
      attempts: 1,
      error: { kind: 'aborted' },
    });
    await close?.();

    const failing = await serve([unavailable({ 'retry-after': '5' })]);
    const duringWait = new AbortController();
    setTimeout(() => duringWait.abort(), 200);
    const started = performance.now();
    const result = await sendWithRetry(call(failing.url), { signal: duringWait.signal });
    expect(performance.now() - started).toBeLessThan(2_000); // aborted at 200 ms, not after Retry-After's 5 s
    expect(result).toMatchObject({ ok: false, attempts: 1, error: { kind: 'aborted' } });
    expect(failing.seen).toHaveLength(1);

    const before = await sendWithRetry(call(failing.url), { signal: AbortSignal.abort() });
    expect(before).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(failing.seen).toHaveLength(1);
  });
});
