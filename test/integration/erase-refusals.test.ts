import { afterAll, beforeAll, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';

// What erase refuses, and how: the worker's admin route answers a 4xx naming the field for a bad body and
// 503 ERASURE_NOT_CONFIGURED without ERASURE_KEY; `ops erase` exits 2 for the same, and off a terminal
// without --yes. Nothing is erased in any of these (the route and the CLI check before they read).
const ADMIN_TOKEN = 'erase-refusals-admin-token';
let pipeline: Pipeline;
let url: string;

beforeAll(async () => {
  pipeline = await startPipeline({ ADMIN_TOKEN, METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
  url = pipeline.worker!.metricsUrl!.replace('/admin/metrics', '/admin/erase');
});
afterAll(async () => {
  await pipeline?.stop();
});

async function erase(body: string, token = ADMIN_TOKEN) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.text()).trim() };
}

it('the admin route: 401 without the token, 4xx naming the field for a bad body, 503 without ERASURE_KEY', async () => {
  expect((await erase('{"email":"ada@acme.io"}', 'not-the-admin-token-at-all')).status).toBe(401);
  expect((await fetch(url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(404);
  const cases: [string, number, Record<string, string>][] = [
    ['{', 400, { error: 'INVALID_JSON' }],
    ['[1]', 400, { error: 'INVALID_JSON' }],
    ['{}', 400, { error: 'EMAIL_REQUIRED', field: 'email' }],
    ['{"email":"not an address"}', 400, { error: 'INVALID_EMAIL', field: 'email' }],
    ['{"email":"ada@acme.io","dryRun":"yes"}', 400, { error: 'INVALID_FIELD', field: 'dryRun' }],
    [JSON.stringify({ email: `${'a'.repeat(5000)}@acme.io` }), 413, { error: 'PAYLOAD_TOO_LARGE' }],
    ['{"email":"ada@acme.io","dryRun":true}', 503, { error: 'ERASURE_NOT_CONFIGURED' }],
  ];
  for (const [body, status, expected] of cases) {
    const answer = await erase(body);
    expect({ body: body.slice(0, 40), status: answer.status }).toEqual({ body: body.slice(0, 40), status });
    expect(JSON.parse(answer.body)).toMatchObject(expected);
    expect(answer.body).not.toContain('acme.io'); // the address is never echoed
  }
});

it('ops erase: exit 2 without ERASURE_KEY, for a bad address, off a terminal without --yes; exit 1 soon when Redis is down', async () => {
  const noKey = await runOps(['erase', '--email', 'ada@acme.io', '--yes'], pipeline.env);
  expect(noKey.code).toBe(2);
  expect(noKey.stderr).toContain('ERASURE_KEY is not set');
  const env = { ...pipeline.env, ERASURE_KEY: 'k'.repeat(32) };
  const bad = await runOps(['erase', '--email', 'not an address', '--yes'], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--email: email is not an email address');
  const unasked = await runOps(['erase', '--email', 'ada@acme.io'], env);
  expect(unasked.code).toBe(2);
  expect(unasked.stderr).toContain('add --yes');
  const started = Date.now();
  const noRedis = await runOps(['erase', '--email', 'ada@acme.io', '--yes'], {
    ...env,
    REDIS_URL: 'redis://127.0.0.1:1',
  });
  expect(noRedis.code).toBe(1);
  expect(noRedis.stderr).toContain('could not reach Redis');
  expect(Date.now() - started).toBeLessThan(20_000);
  const shortKey = await runOps(['erase', '--email', 'ada@acme.io', '--yes'], {
    ...pipeline.env,
    ERASURE_KEY: 'short',
  });
  expect(shortKey.code).toBe(2);
  expect(shortKey.stderr).toContain('ERASURE_KEY');
});
