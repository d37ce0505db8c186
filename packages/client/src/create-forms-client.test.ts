import { CV_MAX_BYTES, SUBMISSION_ENDPOINTS } from '@forms/schemas';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCv, checkSubmission } from './checks.ts';
import { createFormsClient } from './create-forms-client.ts';
import { json, scriptedServer } from './scripted-server.ts';

let close: (() => Promise<void>) | undefined;
afterEach(() => close?.());

async function serve(answers: Parameters<typeof scriptedServer>[0] = []) {
  const server = await scriptedServer(answers);
  close = server.close;
  return { ...server, client: createFormsClient({ baseUrl: `${server.url}/`, baseDelayMs: 10 }) };
}

describe('createFormsClient', () => {
  it('calls each endpoint at the path and method the schemas list, with a fresh key per submission', async () => {
    const { client, seen } = await serve();
    await client.submitContact({ email: 'a@acme.io' });
    await client.updateContact({ email: 'a@acme.io' });
    for (const kind of ['cpa', 'caf', 'cdg', 'sfa', 'rebriefing', 'usa', 'creator'] as const)
      await client.signup(kind, { email: 'a@acme.io' });
    await client.applyForJob({ name: 'Ada', email: 'a@acme.io', role: 'Engineer' });
    await client.registerForWebinar({ fullName: 'Ada', workEmail: 'a@acme.io' });
    expect(seen.map((s) => `${s.method} ${s.url}`).sort()).toEqual(
      SUBMISSION_ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort(),
    );
    const keys = new Set(seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(SUBMISSION_ENDPOINTS.length);
    for (const key of keys)
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('shares one request between identical submissions in flight (a double click); a new one after is new', async () => {
    const { client, seen } = await serve();
    const [first, second] = await Promise.all([
      client.submitContact({ email: 'a@acme.io', name: 'Ada' }),
      client.submitContact({ email: 'a@acme.io', name: 'Ada' }),
    ]);
    expect(seen).toHaveLength(1);
    expect(first).toBe(second);
    await Promise.all([client.submitContact({ email: 'a@acme.io' }), client.submitContact({ email: 'b@acme.io' })]);
    await client.submitContact({ email: 'a@acme.io', name: 'Ada' });
    expect(seen).toHaveLength(4);
  });

  it('sends a CV Blob as cvFile {filename, contentType, data: base64}', async () => {
    const { client, seen } = await serve();
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    const cv = new File([bytes], 'ada.pdf', { type: 'application/pdf' });
    await client.applyForJob({ name: 'Ada', email: 'a@acme.io', role: 'Engineer', cvFile: cv });
    const sent = JSON.parse(seen[0]!.body);
    expect(sent.cvFile).toEqual({
      filename: 'ada.pdf',
      contentType: 'application/pdf',
      data: Buffer.from(bytes).toString('base64'),
    });
  });

  it("carries a solved challenge's token in the field its provider's widget names, the same token on a retry", async () => {
    const { client, seen } = await serve([json(503, {}), json(200, { success: true })]);
    await client.submitContact({ email: 'a@acme.io' }, { challenge: { provider: 'turnstile', token: 'tok-1' } });
    await client.signup('cpa', { email: 'a@acme.io' }, { challenge: { provider: 'hcaptcha', token: 'tok-2' } });
    await client.registerForWebinar(
      { fullName: 'Ada', workEmail: 'a@acme.io' },
      { challenge: { provider: 'recaptcha', token: 'tok-3' } },
    );
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([
      { email: 'a@acme.io', 'cf-turnstile-response': 'tok-1' },
      { email: 'a@acme.io', 'cf-turnstile-response': 'tok-1' },
      { email: 'a@acme.io', 'h-captcha-response': 'tok-2' },
      { fullName: 'Ada', workEmail: 'a@acme.io', 'g-recaptcha-response': 'tok-3' },
    ]);
    expect(seen[0]!.headers['idempotency-key']).toBe(seen[1]!.headers['idempotency-key']);
  });

  it('reads the latest video with a plain GET (no Idempotency-Key, so no preflight), retrying a 502', async () => {
    const video = { videoId: 'x', title: 't' };
    const { client, seen } = await serve([
      json(502, { error: 'VIDEO_FEED_UNAVAILABLE', message: '' }),
      json(200, video),
    ]);
    expect(await client.latestVideo()).toMatchObject({ ok: true, data: video, attempts: 2 });
    expect(seen.map((s) => [s.method, s.headers['idempotency-key'], s.headers['content-type']])).toEqual([
      ['GET', undefined, undefined],
      ['GET', undefined, undefined],
    ]);
  });
});

describe('@forms/client/checks', () => {
  it("names the field and code as the gateway would, after the gateway's trimming", () => {
    expect(checkSubmission('contact', { email: '  ' })).toMatchObject({ code: 'EMAIL_REQUIRED', field: 'email' });
    expect(checkSubmission('contact', { email: 'nope' })).toMatchObject({ code: 'INVALID_EMAIL', field: 'email' });
    expect(checkSubmission('partner-webinar', { workEmail: 'a@acme.io' })).toMatchObject({
      code: 'FIELD_REQUIRED',
      field: 'fullName',
      message: 'Include "fullName": it is required and must not be empty.',
    });
    expect(checkSubmission('contact', { email: 'a@acme.io', name: 'x'.repeat(201) })).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'name',
      message: '"name" must be at most 200 characters.',
    });
    expect(checkSubmission('contact', { email: ' a@acme.io ', name: '' })).toBeUndefined();
  });

  it('checks a CV by type and size before it is read', () => {
    const pdf = (size: number) => new Blob([new Uint8Array(size)], { type: 'application/pdf' });
    expect(checkCv(pdf(CV_MAX_BYTES))).toBeUndefined();
    expect(checkCv(pdf(CV_MAX_BYTES + 1))).toMatchObject({ code: 'CV_TOO_LARGE', field: 'cvFile.data' });
    expect(checkCv(pdf(0))).toMatchObject({ code: 'CV_CONTENT_MISMATCH', field: 'cvFile.data' });
    expect(checkCv(new Blob(['x'], { type: 'image/png' }))).toMatchObject({
      code: 'INVALID_FIELD',
      field: 'cvFile.contentType',
    });
    const application = { name: 'Ada', email: 'a@acme.io', role: 'Engineer', cvFile: pdf(CV_MAX_BYTES + 1) };
    expect(checkSubmission('careers-apply', application)).toMatchObject({ code: 'CV_TOO_LARGE' });
    expect(checkSubmission('careers-apply', { ...application, role: '' })).toMatchObject({ field: 'role' });
  });
});
