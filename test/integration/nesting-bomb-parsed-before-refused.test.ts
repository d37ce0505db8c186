import { BODY_LIMITS } from '@forms/schemas';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19, item 5: a 6 MB `[[[…]]]` to careers-apply was parsed whole (0.9–1.8 s of JSON.parse, the event
// loop stalled for every other request: /healthz p50 went from 3 ms to 975 ms under four such clients)
// before the depth check refused it. The raw text is now scanned first (depth, and members at every
// depth), so a body is refused at the first character past a limit, without being parsed: a text that is
// too deep *and* broken further on is refused as too deep, which it could not be if it were parsed first.
// The timings: `pnpm bench:body-bomb` (prints figures).
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(() => gateway?.stop());

function post(path: string, body: string) {
  return fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

it('a deep body is refused for its depth before it is parsed: broken JSON after the limit does not matter', async () => {
  const res = await post('/api/contact', `{"email":"ada@acme.io","junk":${'['.repeat(40)}this is not json`);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({
    code: 'INVALID_JSON',
    message: expect.stringMatching(/nested more than 32 levels/),
  });
});

it('a 6 MB nesting bomb to careers-apply is refused for its depth', async () => {
  const half = 3 * 1024 * 1024;
  const res = await post('/api/careers-apply', `${'['.repeat(half)}${']'.repeat(half)}`);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: 'INVALID_JSON', message: expect.stringMatching(/nested/) });
});

it(`a wide body (more than ${BODY_LIMITS.members} members and items in all) is refused before it is parsed`, async () => {
  const wide = `{"email":"ada@acme.io","name":"Ada","cv":"https://example.com/cv.pdf","role":"x","junk":[${'{},'.repeat(BODY_LIMITS.members)}{}]}`;
  const res = await post('/api/careers-apply', wide);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({
    error: 'INVALID_JSON',
    message: expect.stringMatching(new RegExp(`more than ${BODY_LIMITS.members} members`)),
  });
  // …while a body at the limit is read as usual (the unknown field is dropped).
  const atLimit = `{"email":"wide@acme.io","name":"Ada","role":"x","junk":[${'0,'.repeat(BODY_LIMITS.members - 6)}0]}`;
  expect((await post('/api/careers-apply', atLimit)).status).toBe(200);
});

it('strings are not structure: brackets, commas and escaped quotes inside them count for nothing', async () => {
  const text = `${'[{,\\"'.repeat(3000)}`;
  const res = await post('/api/contact', JSON.stringify({ email: 'str@acme.io', message: text.slice(0, 2000) }));
  expect(res.status).toBe(200);
});
