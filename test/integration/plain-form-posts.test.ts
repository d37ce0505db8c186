import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { postRaw } from '../support/post-raw.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Form posts (urlencoded and multipart) read into the JSON shape, and a browser's own form post answered
// with a page or a redirect from the allowlist (docs/site-forms.md#plain-html-forms).
let gateway: TestGateway;
const SITE = 'https://www.acme.example';
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), {
    FORM_REDIRECT_URLS: `${SITE}/thanks.html, ${SITE}/forms/`,
  });
});
afterAll(() => gateway.stop());
beforeEach(() => gateway.clearQueue());

/** What Chromium sends for a form's own post (no JavaScript). */
const NAVIGATE = { 'sec-fetch-mode': 'navigate', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

function post(path: string, body: URLSearchParams | FormData | string, headers: Record<string, string> = {}) {
  if (headers['sec-fetch-mode'] || headers.accept) return navigate(path, body, headers);
  return fetch(gateway.url + path, { method: 'POST', body, headers, redirect: 'manual' });
}

/** fetch sends its own Sec-Fetch-Mode (cors); a browser's navigation is sent as node:http lets us write it. */
async function navigate(path: string, body: URLSearchParams | FormData | string, headers: Record<string, string>) {
  // Let fetch's Request encode the body as it would (multipart boundary included), then send it raw.
  const encoded = new Request('http://x/', { method: 'POST', body });
  const res = await postRaw(gateway.url + path, {
    headers: { 'content-type': encoded.headers.get('content-type')!, ...headers },
    body: Buffer.from(await encoded.arrayBuffer()),
  });
  const out = new Headers();
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out.set(k, v);
  return new Response(res.status === 303 ? null : res.text, { status: res.status, headers: out });
}

/** A careers application with its CV as a file input. */
function form(file: Buffer, name: string, type: string) {
  const body = new FormData();
  body.append('email', 'cv@acme.io');
  body.append('name', 'Ada');
  body.append('role', 'Engineer');
  body.append('cvFile', new Blob([new Uint8Array(file)], { type }), name);
  return body;
}

describe('form bodies read into the JSON shape', () => {
  it('urlencoded, multipart and JSON queue the same job and get the same JSON answer', async () => {
    const fields = { email: ' Ada@Acme.IO ', name: 'Ada', message: 'Bonjour, ça va ? 1+1=2 & more', extra: 'dropped' };
    const multipart = new FormData();
    for (const [k, v] of Object.entries(fields)) multipart.append(k, v);
    const answers = [
      await post('/api/contact', JSON.stringify(fields), { 'content-type': 'application/json' }),
      await post('/api/contact', new URLSearchParams(fields)),
      await post('/api/contact', multipart),
    ];
    const bodies = await Promise.all(answers.map((res) => res.json()));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(answers.map((res) => res.headers.get('content-type'))).toEqual(
      Array(3).fill('application/json; charset=utf-8'),
    );
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    const jobs = await gateway.jobs();
    const data = { email: 'ada@acme.io', name: 'Ada', message: 'Bonjour, ça va ? 1+1=2 & more' };
    expect(jobs.map((job) => job.data)).toEqual([data, data, data]);
  });

  it('a checkbox\'s "on" is true on a boolean field; a dotted name is a nested field; the last of two values wins', async () => {
    const res = await post(
      '/api/usa-signup',
      new URLSearchParams([
        ['email', 'lee@acme.io'],
        ['already_working_with_influencers', 'false'],
        ['already_working_with_influencers', 'on'],
      ]),
    );
    expect(res.status).toBe(200);
    expect((await gateway.jobs())[0]!.data).toEqual({ email: 'lee@acme.io', already_working_with_influencers: true });
    const wrong = await post(
      '/api/usa-signup',
      new URLSearchParams({ email: 'a@acme.io', already_working_with_influencers: 'yes' }),
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'INVALID_FIELD', field: 'already_working_with_influencers' });

    const nested = await post(
      '/api/careers-apply',
      new URLSearchParams({
        email: 'a@acme.io',
        name: 'A',
        role: 'R',
        'cvFile.filename': 'cv.exe',
        'cvFile.contentType': 'application/x-msdownload',
        'cvFile.data': 'AA==',
        '__proto__.polluted': 'yes',
      }),
    );
    expect(await nested.json()).toMatchObject({ error: 'INVALID_FIELD', field: 'cvFile.contentType' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the honeypot and the challenge tokens are fields of the body like any other', async () => {
    const res = await post(
      '/api/contact',
      new URLSearchParams({ email: `bot-${randomUUID()}@acme.io`, website: 'http://spam.example' }),
    );
    expect(res.status).toBe(200);
    expect(await gateway.jobCount()).toBe(0); // kept in the quarantine, not queued
    expect(gateway.counters.honeypotQuarantined).toBeGreaterThan(0);
  });

  it('a CV as a file input is checked as the base64 field is: sniffed, and refused past 5 MiB with 413', async () => {
    const ok = await post('/api/careers-apply', form(samplePdf(), 'ada.pdf', PDF_TYPE));
    expect(ok.status).toBe(200);
    // No bucket in this test: the CV passed every check and the answer says it could not be kept.
    expect(await ok.json()).toMatchObject({ success: true, cvUploadFailed: true });
    // A browser that does not know the type sends octet-stream: the extension names it, the bytes must agree.
    const unknownType = await post('/api/careers-apply', form(samplePdf(), 'ada.pdf', 'application/octet-stream'));
    expect(unknownType.status).toBe(200);
    const renamed = await post('/api/careers-apply', form(Buffer.from('MZ not a pdf'), 'cv.pdf', PDF_TYPE));
    expect(await renamed.json()).toMatchObject({ error: 'CV_CONTENT_MISMATCH', field: 'cvFile.data' });
    const big = await post(
      '/api/careers-apply',
      form(Buffer.concat([samplePdf(), Buffer.alloc(5 * 1024 * 1024)]), 'big.pdf', PDF_TYPE),
    );
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: 'CV_TOO_LARGE', field: 'cvFile' });
    // No file chosen: the browser still sends the part, with no name and no bytes; it is no CV.
    const none = await post('/api/careers-apply', form(Buffer.alloc(0), '', 'application/octet-stream'));
    expect(await none.json()).toMatchObject({ success: true, cvUploadFailed: false });
    expect(await gateway.jobCount()).toBe(3);
  });

  it('a multipart body cut short inside the CV file is a 400, and the gateway goes on', async () => {
    const whole = new Request('http://x/', { method: 'POST', body: form(samplePdf(100_000), 'cv.pdf', PDF_TYPE) });
    const bytes = Buffer.from(await whole.arrayBuffer());
    for (const end of [bytes.length - 10, Math.floor(bytes.length / 2), 700]) {
      const res = await fetch(`${gateway.url}/api/careers-apply`, {
        method: 'POST',
        headers: { 'content-type': whole.headers.get('content-type')! },
        body: bytes.subarray(0, end),
      });
      expect({ end, status: res.status }).toEqual({ end, status: 400 });
      expect(await res.json()).toMatchObject({ error: 'INVALID_FORM' });
    }
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    expect(await gateway.jobCount()).toBe(0);
  });
});

describe("a browser's own form post", () => {
  it('goes to the allowlisted thank-you page with 303, or gets our own thank-you page', async () => {
    const redirected = await post(
      '/api/contact',
      new URLSearchParams({ email: 'nav@acme.io', _next: `${SITE}/thanks.html` }),
      NAVIGATE,
    );
    expect(redirected.status).toBe(303);
    expect(redirected.headers.get('location')).toBe(`${SITE}/thanks.html`);
    const own = await post('/api/contact', new URLSearchParams({ email: 'nav@acme.io' }), NAVIGATE);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await own.text()).toContain('<h1>Thank you</h1>');
    // Without Sec-Fetch-Mode (an older browser), Accept: text/html tells it apart; fetch's cors mode does not.
    const old = await post('/api/contact', new URLSearchParams({ email: 'nav@acme.io' }), { accept: 'text/html' });
    expect(old.headers.get('content-type')).toContain('text/html');
    const scripted = await post('/api/contact', new URLSearchParams({ email: 'nav@acme.io' }), {
      'sec-fetch-mode': 'cors',
      accept: 'text/html',
    });
    expect(scripted.headers.get('content-type')).toContain('application/json');
    expect(await gateway.jobCount()).toBe(4);
  });

  it('never follows a thank-you page outside the allowlist, yet keeps the submission: our own page instead', async () => {
    for (const target of [
      'https://evil.example/thanks.html',
      `${SITE}/other.html`,
      'https://www.acme.example.evil.example/thanks.html',
      'https://www.acme.example@evil.example/thanks.html',
      `${SITE.replace('https', 'http')}/thanks.html`,
      '//evil.example/thanks.html',
      'javascript:alert(1)',
      '/thanks.html',
    ]) {
      const res = await post('/api/contact', new URLSearchParams({ email: 'a@acme.io', _next: target }), NAVIGATE);
      expect({ target, status: res.status, location: res.headers.get('location') }).toEqual({
        target,
        status: 200,
        location: null,
      });
      expect(await res.text()).toContain('<h1>Thank you</h1>');
    }
    // The site's mistake costs no lead: each was judged on its own merits, and queued.
    expect(await gateway.jobCount()).toBe(8);
  });

  it('a refusal goes back to the allowlisted form page with the code and field, never the value', async () => {
    const res = await post(
      '/api/cpa-signup',
      new URLSearchParams({ email: 'pat.private@gmail.com', _error: `${SITE}/forms/signup.html?lang=en` }),
      NAVIGATE,
    );
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${SITE}/forms/signup.html`);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      lang: 'en',
      form: 'cpa-signup',
      error: 'WORK_EMAIL_REQUIRED',
      field: 'email',
    });
    expect(back.href).not.toContain('gmail');
    expect(await gateway.jobCount()).toBe(0);
  });

  it('a body refused for its size still goes back to _error, sent before the long fields, with its code', async () => {
    const res = await post(
      '/api/contact',
      new URLSearchParams({ _error: `${SITE}/forms/{error}.html`, email: 'long@acme.io', message: 'x'.repeat(40_000) }),
      NAVIGATE,
    );
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(`${back.pathname}?${back.searchParams}`).toBe(
      '/forms/PAYLOAD_TOO_LARGE.html?form=contact&error=PAYLOAD_TOO_LARGE',
    );
    expect(await gateway.jobCount()).toBe(0);
  });

  it('without a page to go back to, the refusal is our page naming the field in words, with the status', async () => {
    const res = await post(
      '/api/partner-webinar',
      new URLSearchParams({ fullName: 'Pat', workEmail: 'pat@gmail.com' }),
      NAVIGATE,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const page = await res.text();
    expect(page).toContain('Please use your work email address in Work email');
    expect(page).not.toContain('pat@gmail.com');
    expect(page).not.toContain('&#34;workEmail&#34;');
    const body = new FormData();
    body.append('email', 'cv@acme.io');
    body.append('name', 'Ada');
    body.append('role', 'Engineer');
    body.append('cvFile', new Blob([new Uint8Array(5 * 1024 * 1024 + 1)], { type: PDF_TYPE }), 'big.pdf');
    const big = await post('/api/careers-apply', body, NAVIGATE);
    expect(big.status).toBe(413);
    const bigPage = await big.text();
    expect(bigPage).toContain('The CV file is larger than 5 MiB. Please choose a smaller file');
    // The API's message names a `cv` link field, which this form does not have.
    expect(bigPage).not.toContain('&#34;cv&#34;');
    expect(await gateway.jobCount()).toBe(0);
  });
});

describe('the per-client limit, for every encoding', () => {
  it('counts form posts with JSON ones, and a person over it gets a page with Retry-After', async () => {
    const limited = await startTestGateway(inject('redisUrl'), { RATE_LIMIT_REQUESTS: '2' });
    try {
      const url = `${limited.url}/api/contact`;
      const json = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"email":"a@acme.io"}',
      });
      const form = await fetch(url, { method: 'POST', body: new URLSearchParams({ email: 'a@acme.io' }) });
      expect([json.status, form.status]).toEqual([200, 200]);
      const multipart = new FormData();
      multipart.append('email', 'a@acme.io');
      const over = await fetch(url, { method: 'POST', body: multipart });
      expect(over.status).toBe(429);
      expect(await over.json()).toMatchObject({ code: 'RATE_LIMITED' });
      const person = await postRaw(url, {
        headers: { ...NAVIGATE, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a%40acme.io',
      });
      expect(person.status).toBe(429);
      expect(Number(person.headers['retry-after'])).toBeGreaterThan(0);
      expect(person.text).toContain('Too many forms were sent from your connection');
      expect(await limited.jobCount()).toBe(2);
    } finally {
      await limited.stop();
    }
  });
});
