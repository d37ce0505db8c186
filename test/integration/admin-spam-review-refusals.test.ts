import { randomUUID } from 'node:crypto';
import { HONEYPOT_FIELD, opsKeys } from '@forms/schemas';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { sendJson } from '../support/http.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { validBody } from '../support/valid-bodies.ts';

// /admin/spam is the admin wing's, refused as the wing refuses: no token or a wrong one (401, with the Basic
// challenge a browser answers), a write from another site's form even with the credentials a browser would
// attach (403, nothing changed, nothing audited), never framed nor cached; bad filters are a 400 naming the field.
const TOKEN = 'admin-token-for-spam-refusals-0123';
const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` });
let gateway: TestGateway;
let held: string;

beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), { ADMIN_TOKEN: TOKEN });
  const trapped = await sendJson(`${gateway.url}/api/creator-signup`, {
    ...validBody('creator-signup', `refused-${randomUUID()}`),
    [HONEYPOT_FIELD]: 'x',
  });
  held = trapped.body.recordId;
});
afterAll(() => gateway?.stop());

const keys = () => opsKeys({ prefix: 'bull' }, gateway.queueName);
const post = (path: string, form: Record<string, string>, headers: Record<string, string>) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });

it('without the token, or with a wrong one, every spam route answers 401 with a Basic challenge', async () => {
  for (const headers of [{}, basic('nope'), { authorization: `Bearer ${TOKEN}x` }]) {
    const page = await fetch(`${gateway.url}/admin/spam`, { headers });
    expect(page.status).toBe(401);
    expect(page.headers.get('www-authenticate')).toMatch(/^Basic /);
    for (const path of ['/admin/spam/actions', '/admin/spam/purge']) {
      const res = await post(path, { act: `purge:${held}`, id: held, confirm: 'yes' }, headers);
      expect(res.status, path).toBe(401);
    }
  }
  expect(await gateway.redis.zscore(keys().spamIndex, held)).not.toBeNull();
});

it("another site's form post is refused with the browser's credentials attached: nothing purged, nothing audited", async () => {
  const crossSite: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site', origin: 'https://sub.forms.example' },
  ];
  for (const headers of crossSite) {
    const res = await post('/admin/spam/purge', { id: held, confirm: 'yes' }, { ...basic(TOKEN), ...headers });
    expect(res.status, JSON.stringify(headers)).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'FORBIDDEN_ORIGIN' });
    const reveal = await post('/admin/spam/actions', { act: `reveal:${held}` }, { ...basic(TOKEN), ...headers });
    expect(reveal.status).toBe(403);
  }
  expect(await gateway.redis.zscore(keys().spamIndex, held)).not.toBeNull();
  expect(await gateway.redis.xlen(keys().audit)).toBe(0);
  // The same post from the page itself is taken.
  const own = await post('/admin/spam/purge', { id: held, confirm: 'yes' }, { ...basic(TOKEN), origin: gateway.url });
  expect(own.status).toBe(303);
  expect(await gateway.redis.zscore(keys().spamIndex, held)).toBeNull();
});

it('the page, the confirmation and a reveal are never framed nor cached', async () => {
  const page = await fetch(`${gateway.url}/admin/spam`, { headers: basic(TOKEN) });
  const confirm = await post('/admin/spam/actions', { act: 'purge', id: 'sub_x' }, basic(TOKEN));
  for (const res of [page, confirm]) {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
  }
});

it('a filter or a form it cannot read is a 400 naming the field', async () => {
  for (const [query, field] of [
    ['layer=nope', 'layer'],
    ['age=forever', 'age'],
    ['offset=-1', 'offset'],
  ]) {
    const res = await fetch(`${gateway.url}/admin/spam?${query}`, { headers: basic(TOKEN) });
    expect(res.status, query).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_FIELD', field });
  }
  const noIds = await post('/admin/spam/actions', { act: 'release' }, basic(TOKEN));
  expect(noIds.status).toBe(400);
  expect(await noIds.json()).toMatchObject({ code: 'INVALID_FIELD', field: 'id' });
  const unconfirmed = await post('/admin/spam/purge', { id: 'sub_x' }, basic(TOKEN));
  expect(await unconfirmed.json()).toMatchObject({ code: 'INVALID_FIELD', field: 'confirm' });
});
