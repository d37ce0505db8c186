import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// The admin surface: every route needs ADMIN_TOKEN (bearer, or Basic password for a browser), and none
// exists without one; no CORS; Bull Board's writes refused cross-site even with the browser's cached
// credentials attached; support's status route by submission id and by recordId.
const TOKEN = 'admin-token-for-tests-0123456789';
const ROUTES = ['/admin/metrics', '/admin/queues', '/admin/queues/api/queues', '/admin/submissions/sub_x'];
let pipeline: Pipeline;
let closed: RunningGateway;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` });

beforeAll(async () => {
  // Bull Board's writes on (read-only is the default): the cross-site checks below are about its writes.
  pipeline = await startPipeline({ ADMIN_TOKEN: TOKEN, BULL_BOARD_WRITES: 'true' });
  const { ADMIN_TOKEN: _, ...withoutToken } = pipeline.env;
  closed = await startGateway(gatewayConfig({ ...withoutToken, PORT: '0', HOST: '127.0.0.1' }));
});
afterAll(async () => {
  await closed?.stop();
  await pipeline?.stop();
});

it('every admin route answers 401 without a token, with a wrong one (bearer or Basic), and no CORS', async () => {
  for (const path of ROUTES) {
    for (const headers of [
      {},
      bearer('wrong-token-of-the-same-len-xx'),
      bearer(`${TOKEN}x`),
      basic('nope'),
      { authorization: TOKEN },
    ]) {
      const res = await fetch(`${pipeline.gateway.url}${path}`, {
        headers: { ...headers, origin: 'https://site.example' },
      });
      expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('www-authenticate')).toMatch(path.startsWith('/admin/queues') ? /^Basic / : /^Bearer /);
    }
  }
  // A preflight for an admin write gets no CORS approval either.
  const preflight = await fetch(`${pipeline.gateway.url}/admin/queues/api/queues`, {
    method: 'OPTIONS',
    headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT' },
  });
  expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  // …while the public surface keeps its open CORS and the request id.
  const pub = await fetch(`${pipeline.gateway.url}/healthz`, { headers: { origin: 'https://site.example' } });
  expect(pub.headers.get('access-control-allow-origin')).toBe('*');
});

it('with the token (bearer, or Basic password from a browser) every route answers, never framed', async () => {
  for (const headers of [bearer(TOKEN), basic(TOKEN)]) {
    for (const path of ['/admin/metrics', '/admin/queues', '/admin/queues/api/queues']) {
      const res = await fetch(`${pipeline.gateway.url}${path}`, { headers });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  }
});

it('with no ADMIN_TOKEN configured the admin surface does not exist: 404, token or not', async () => {
  for (const path of [...ROUTES, '/admin', '/admin/anything']) {
    for (const headers of [{}, bearer(TOKEN)]) {
      const res = await fetch(`${closed.url}${path}`, { headers });
      expect(res.status, path).toBe(404);
    }
  }
});

it('a cross-site write to Bull Board is refused even with the credentials a browser would attach', async () => {
  const { queue, gateway } = pipeline;
  // A failed job to retry: a payload that fails its schema fails at once.
  await queue.add('contact.v1', { v: 1, broken: true }, { jobId: 'sub_admin_broken', attempts: 1 });
  await eventually(async () => (await queue.getFailedCount()) === 1);
  const board = `${gateway.url}/admin/queues/api/queues/${queue.name}`;
  const attacks: [string, string, Record<string, string>, string?][] = [
    ['PUT', `${board}/retry/failed`, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }],
    ['PUT', `${board}/sub_admin_broken/retry/failed`, { origin: 'https://evil.example' }],
    ['PUT', `${board}/retry/failed`, { origin: 'null' }],
    ['PUT', `${board}/retry/failed`, { 'sec-fetch-site': 'same-site' }],
    // A foreign page's <form method=post>: a CORS-safelisted POST, no preflight, cookies and Basic attached.
    [
      'POST',
      `${board}/add`,
      {
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      'name=contact.v1&data=%7B%7D',
    ],
  ];
  for (const [method, url, headers, body] of attacks) {
    const res = await fetch(url, { method, headers: { ...basic(TOKEN), ...headers }, body });
    expect(res.status, `${method} ${url} ${JSON.stringify(headers)}`).toBe(403);
  }
  expect(await queue.getFailedCount()).toBe(1);
  expect(await queue.getJobCounts('waiting', 'active', 'completed')).toEqual({ waiting: 0, active: 0, completed: 0 });

  // The same write from the board's own page (same origin) or a tool with the bearer token goes through.
  const own = await fetch(`${board}/retry/failed`, {
    method: 'PUT',
    headers: { ...basic(TOKEN), origin: gateway.url, 'sec-fetch-site': 'same-origin' },
  });
  expect(own.status).toBe(200);
  await eventually(async () => (await queue.getJob('sub_admin_broken'))?.attemptsMade === 2);
  await queue.remove('sub_admin_broken');
});

it('GET /admin/submissions/:id: state, attempts, times and the CRM id, by submission id and by recordId', async () => {
  const { gateway, queue } = pipeline;
  const body = validBody('contact', `status-${Date.now()}`);
  const first = await sendJson(`${gateway.url}/api/contact`, body);
  const again = await sendJson(`${gateway.url}/api/contact-update`, { email: body.email, name: 'Ada' }, 'PATCH');
  expect(first.status).toBe(200);
  expect(again.body.recordId).toBe(first.body.recordId); // one contact, two submissions
  await eventually(async () => ((await queue.getJobCounts('completed')).completed ?? 0) >= 2);

  const byRecord = await fetch(`${gateway.url}/admin/submissions/${first.body.recordId}`, { headers: bearer(TOKEN) });
  expect(byRecord.status).toBe(200);
  const found = await byRecord.json();
  expect(found.submissions.map((s: { kind: string }) => s.kind)).toEqual(['contact-update', 'contact']); // newest first
  const status = found.submissions[1];
  expect(status).toMatchObject({ recordId: first.body.recordId, kind: 'contact', state: 'delivered', attempts: 1 });
  expect(status.submissionId).toMatch(/^sub_/);
  expect(Date.parse(status.deliveredAt)).toBeGreaterThanOrEqual(Date.parse(status.acceptedAt));
  expect(status.crmRecordId).toBe(first.body.recordId);
  expect(status.requestId).toBe(first.headers.get('x-request-id'));
  expect(JSON.stringify(found)).not.toContain('@'); // no personal data in a status

  const bySubmission = await fetch(`${gateway.url}/admin/submissions/${status.submissionId}`, {
    headers: bearer(TOKEN),
  });
  expect((await bySubmission.json()).submissions[0]).toEqual(status);
  const missing = await fetch(`${gateway.url}/admin/submissions/sub_nothing_here`, { headers: bearer(TOKEN) });
  expect(missing.status).toBe(404);
});

it('X-Request-Id: a sane one is honoured and carried in the job; a hostile one is replaced', async () => {
  const { gateway, queue } = pipeline;
  const send = (id: string) =>
    fetch(`${gateway.url}/api/creator-signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': id },
      body: JSON.stringify(validBody('creator-signup', `rid-${Date.now()}-${id.length}`)),
    });
  const sane = await send('lb-7f3a.2026:abc_DEF-1');
  expect(sane.headers.get('x-request-id')).toBe('lb-7f3a.2026:abc_DEF-1');
  const job = await queue.getJob(((await sane.json()) as { recordId: string }).recordId);
  expect(job!.data.requestId).toBe('lb-7f3a.2026:abc_DEF-1');
  for (const hostile of ['a b', 'x'.repeat(65), 'id\\u0000', '<script>']) {
    const res = await send(hostile);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  }
});

it('/admin routes are not in /openapi.json', async () => {
  const doc = await (await fetch(`${pipeline.gateway.url}/openapi.json`)).json();
  expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
});
