import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './wait.ts';

export type Provider = 'turnstile' | 'hcaptcha' | 'recaptcha';

/** What each provider answers for a token verified before (their documentation's error code). */
const SPENT: Record<Provider, string> = {
  turnstile: 'timeout-or-duplicate',
  hcaptcha: 'invalid-or-already-seen-response',
  recaptcha: 'timeout-or-duplicate',
};
const WIDGET_CLASS: Record<Provider, string> = {
  turnstile: 'cf-turnstile',
  hcaptcha: 'h-captcha',
  recaptcha: 'g-recaptcha',
};
const TOKEN_FIELD: Record<Provider, string> = {
  turnstile: 'cf-turnstile-response',
  hcaptcha: 'h-captcha-response',
  recaptcha: 'g-recaptcha-response',
};

/** One siteverify request as the server received it (the form fields). */
type VerifyRequest = { contentType: string | undefined; secret?: string; response?: string; remoteip?: string };

export type Siteverify = {
  /** The siteverify URL (CHALLENGE_VERIFY_URL). */
  url: string;
  /** The widget stand-in's script, for a page: it adds the hidden token field to the form it sits in. */
  widgetUrl: string;
  /** A token as a solved widget would hand one out: single use, valid `ttlMs`; `score` for reCAPTCHA v3. */
  issue(options?: { score?: number; ttlMs?: number }): string;
  requests: VerifyRequest[];
  /** `down`: 503 to every call; `slow`: answers after `slowMs`; `garbled`: 200 with a body that is not JSON. */
  fault: { mode: 'none' | 'down' | 'slow' | 'garbled'; slowMs: number };
  stop(): Promise<void>;
};

/**
 * A local stand-in for a challenge provider's siteverify API, as Cloudflare Turnstile, hCaptcha and Google
 * reCAPTCHA document it: a POST of `secret`, `response` and optional `remoteip` (form-encoded; Turnstile also
 * takes JSON), a JSON answer `{success, "error-codes", challenge_ts, hostname, …}` with the documented error
 * codes (`missing-input-secret`, `invalid-input-secret`, `missing-input-response`, `invalid-input-response`,
 * and the provider's own code for a token used twice or expired), `score` and `action` for reCAPTCHA v3.
 * Tokens are single use and expire (Turnstile: 300 s; reCAPTCHA: 120 s). It also serves a widget stand-in
 * (`widgetUrl`) that, like the providers' implicit rendering, puts a fresh token in the form's hidden field.
 */
export async function startSiteverify(provider: Provider, secret: string): Promise<Siteverify> {
  const tokens = new Map<string, { expires: number; score?: number | undefined; spent: boolean }>();
  const requests: VerifyRequest[] = [];
  const fault: Siteverify['fault'] = { mode: 'none', slowMs: 0 };
  function issue({
    score,
    ttlMs = provider === 'recaptcha' ? 120_000 : 300_000,
  }: {
    score?: number;
    ttlMs?: number;
  } = {}) {
    const token = `${provider}.${randomBytes(24).toString('base64url')}`;
    tokens.set(token, { expires: Date.now() + ttlMs, score, spent: false });
    return token;
  }

  async function verify(req: IncomingMessage, res: ServerResponse) {
    const raw = Buffer.concat(await req.toArray()).toString();
    const contentType = req.headers['content-type'];
    const fields: Record<string, string> =
      contentType?.startsWith('application/json') && provider === 'turnstile'
        ? JSON.parse(raw)
        : Object.fromEntries(new URLSearchParams(raw));
    requests.push({ contentType, secret: fields.secret, response: fields.response, remoteip: fields.remoteip });
    if (fault.mode === 'down') return send(res, 503, { error: 'service unavailable' });
    if (fault.mode === 'slow') await sleep(fault.slowMs);
    if (fault.mode === 'garbled') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
      return;
    }
    const failure = (code: string) => send(res, 200, { success: false, 'error-codes': [code] });
    if (!fields.secret) return failure('missing-input-secret');
    if (fields.secret !== secret) return failure('invalid-input-secret');
    if (!fields.response) return failure('missing-input-response');
    const token = tokens.get(fields.response);
    if (!token) return failure('invalid-input-response');
    if (token.spent) return failure(SPENT[provider]);
    token.spent = true;
    if (token.expires < Date.now())
      return failure(provider === 'hcaptcha' ? 'expired-input-response' : SPENT[provider]);
    const ok = { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' };
    if (provider === 'turnstile') return send(res, 200, { ...ok, 'error-codes': [], action: '', cdata: '' });
    if (provider === 'hcaptcha') return send(res, 200, { ...ok, credit: false });
    return send(res, 200, token.score === undefined ? ok : { ...ok, score: token.score, action: 'submit' });
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'POST' && path === '/siteverify') return void verify(req, res);
    if (req.method === 'POST' && path === '/issue') {
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end(issue());
      return;
    }
    if (req.method === 'GET' && path === '/api.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' }).end(widgetScript());
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The widget stand-in: each widget element gets a hidden input named as the provider names it, holding a
  // token from this server, in the form around it; `reset()` fetches a fresh one (a spent token cannot be reused).
  function widgetScript() {
    return `(() => {
  const base = ${JSON.stringify(base)};
  async function fill(el) {
    const form = el.closest('form');
    if (!form) return;
    let input = form.querySelector('input[name=${JSON.stringify(TOKEN_FIELD[provider])}]');
    if (!input) {
      input = document.createElement('input');
      input.type = 'hidden';
      input.name = ${JSON.stringify(TOKEN_FIELD[provider])};
      el.appendChild(input);
    }
    input.value = await (await fetch(base + '/issue', { method: 'POST' })).text();
    el.dataset.solved = 'true';
  }
  const widgets = () => document.querySelectorAll('.${WIDGET_CLASS[provider]}');
  window.${provider === 'recaptcha' ? 'grecaptcha' : provider} = {
    reset: () => Promise.all([...widgets()].map(fill)),
    getResponse: () => document.querySelector('input[name=${JSON.stringify(TOKEN_FIELD[provider])}]')?.value,
  };
  for (const el of widgets()) fill(el);
})();`;
  }

  return {
    url: `${base}/siteverify`,
    widgetUrl: `${base}/api.js`,
    issue,
    requests,
    fault,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function send(res: ServerResponse, status: number, body: object) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
