import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './wait.ts';

type AkismetCall = { method: string; fields: Record<string, string> };

export type FakeAkismet = {
  /** AKISMET_ENDPOINT_URL. */
  url: string;
  calls: AkismetCall[];
  /** `down`: 503; `slow`: answers after `slowMs`. */
  fault: { mode: 'none' | 'down' | 'slow'; slowMs: number };
  stop(): Promise<void>;
};

/**
 * A local stand-in for Akismet's REST API (1.1), as its documentation describes it: form-encoded POSTs to
 * `/1.1/comment-check`, `/1.1/submit-spam` and `/1.1/submit-ham` with `api_key`, `blog` and `user_ip`
 * required. comment-check answers `true` or `false` (text/plain), `true` with `X-akismet-pro-tip: discard`
 * for blatant spam, and `invalid` with `X-akismet-debug-help` for a wrong key or a missing required field;
 * the submit methods answer "Thanks for making the web a better place.". Akismet's documented test values
 * decide: `comment_author_email` `akismet-guaranteed-spam@example.com` is spam; this fake also calls spam
 * blatant (discard) when the content holds `akismet-discard-me`.
 */
export async function startFakeAkismet(apiKey: string): Promise<FakeAkismet> {
  const calls: AkismetCall[] = [];
  const fault: FakeAkismet['fault'] = { mode: 'none', slowMs: 0 };
  const server = createServer(async (req, res) => {
    const method = /^\/1\.1\/(comment-check|submit-spam|submit-ham)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || !method) return void res.writeHead(404).end();
    const fields = Object.fromEntries(new URLSearchParams(Buffer.concat(await req.toArray()).toString()));
    calls.push({ method, fields });
    if (fault.mode === 'down') return void res.writeHead(503).end('unavailable');
    if (fault.mode === 'slow') await sleep(fault.slowMs);
    if (fields.api_key !== apiKey || !fields.blog || !fields.user_ip)
      return text(res, 'invalid', { 'x-akismet-debug-help': 'Empty "blog" value, "user_ip" value, or invalid key' });
    if (method !== 'comment-check') return text(res, 'Thanks for making the web a better place.');
    if ((fields.comment_content ?? '').includes('akismet-discard-me'))
      return text(res, 'true', { 'x-akismet-pro-tip': 'discard' });
    return text(res, fields.comment_author_email === 'akismet-guaranteed-spam@example.com' ? 'true' : 'false');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    fault,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function text(res: ServerResponse, body: string, headers: Record<string, string> = {}) {
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(body);
}
