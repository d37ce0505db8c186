import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 19, item 6: `/admin/submissions/:id` looked any id up as a BullMQ job key, so the queue's own key
// names answered as submissions: `/admin/submissions/meta` → 200 `state: unknown`, `…/id` → 503 (WRONGTYPE).
// Only the shapes of our ids (`sub_…`, `con_…`) are looked up; anything else is a 404.
const TOKEN = 'admin-token-for-tests-0123456789';
let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), { ADMIN_TOKEN: TOKEN });
  // A submission, so that the queue's own keys (meta, id, events, wait) exist.
  const res = await fetch(`${gateway.url}/api/creator-signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'keys@acme.io', name: 'K' }),
  });
  expect(res.status).toBe(200);
});
afterAll(() => gateway?.stop());

const status = (id: string) =>
  fetch(`${gateway.url}/admin/submissions/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });

it('a queue key name is not a submission id: 404, never a status nor a 503', async () => {
  for (const id of ['meta', 'id', 'events', 'wait', 'stalled-check', 'sub_x', 'con_', `sub_${'0'.repeat(27)}`]) {
    const res = await status(id);
    expect(res.status, id).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
  }
});

it('a real submission id is still found', async () => {
  const [job] = await gateway.queue.getJobs(['waiting']);
  const res = await status(String(job!.id));
  expect(res.status).toBe(200);
  expect((await res.json()).submissions[0]).toMatchObject({ submissionId: job!.id, state: 'waiting' });
});
