import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';

// Found on the production layout: with the admin token, GET /admin/queues/api/queues/<queue> answered 500.
// Bull Board has no route there (its API is /api/queues, /api/queues/<queue>/<job id>, …): a path the
// board does not serve is a 404 with a code, never a 5xx; the board's own routes still answer 200.
const TOKEN = 'bull-board-route-admin-token-0123';
let pipeline: Pipeline;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  pipeline = await startPipeline({ ADMIN_TOKEN: TOKEN });
});
afterAll(async () => {
  await pipeline?.stop();
});

it('GET /admin/queues/api/queues/<queue> is a 404 with a code; the board’s routes answer 200', async () => {
  const base = `${pipeline.gateway.url}/admin/queues/api`;
  const name = pipeline.queue.name;
  for (const path of [`/queues/${name}`, `/queues/${name}/`, '/queues/no-such-queue', '/no-such-route']) {
    const res = await fetch(`${base}${path}`, { headers: auth });
    const text = await res.text();
    expect({ path, status: res.status }).toEqual({ path, status: 404 });
    expect(JSON.parse(text)).toMatchObject({ error: 'not_found' });
  }
  for (const path of ['/queues', `/queues/${name}/metrics`, `/queues/${name}/workers`]) {
    const res = await fetch(`${base}${path}`, { headers: auth });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
  }
});
