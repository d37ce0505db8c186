import { ERROR_CODES } from '@forms/schemas';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 49, item 4: an empty JSON body was read as `{}` and answered EMAIL_REQUIRED, where the API guide's
// table gives INVALID_JSON for a body that is not a JSON object; and `[1]`, valid JSON of the wrong shape,
// was told to "check for a syntax error". One rule now (docs/api.md#error-codes), with words for each case.
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'));
});
afterAll(() => gateway.stop());

async function post(body: string) {
  const res = await fetch(`${gateway.url}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, ...((await res.json()) as { code: string; message: string }) };
}

it('an empty JSON body is INVALID_JSON saying it is empty, not EMAIL_REQUIRED', async () => {
  const answer = await post('');
  expect(answer).toMatchObject({ status: 400, code: 'INVALID_JSON' });
  expect(answer.message).toMatch(/is empty/);
  expect(await gateway.jobCount()).toBe(0);
});

it('valid JSON that is not an object says what it is, not that it has a syntax error', async () => {
  for (const [body, what] of [
    ['[1]', 'a JSON array'],
    ['[]', 'a JSON array'],
  ] as const) {
    const answer = await post(body);
    expect(answer).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    expect(answer.message).toContain(what);
    expect(answer.message).not.toMatch(/syntax/);
  }
  for (const body of ['1', '"x"', 'null', 'true']) {
    const answer = await post(body);
    expect(answer).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    expect(answer.message).toMatch(/is not a JSON object/);
    expect(answer.message).not.toMatch(/syntax/);
  }
  const broken = await post('{"email": ');
  expect(broken).toMatchObject({ status: 400, code: 'INVALID_JSON' });
  expect(broken.message).toMatch(/syntax error/);
  // The table's default words stay what the guide lists.
  expect(ERROR_CODES.INVALID_JSON.status).toBe(400);
  expect(await gateway.jobCount()).toBe(0);
});
