import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { loadConfig as workerConfig } from '@forms/worker';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';

// Rotating ADMIN_TOKEN used to need every process and every client (Prometheus, scripts) to change at the
// same instant: a gateway restarted with the new token refused the old one (401) until the clients moved.
// With ADMIN_TOKEN_PREVIOUS both are accepted during the window: the processes move first (new token, old
// as previous), then the clients, then the previous one is dropped. No request is refused on the way.
const OLD = 'the-old-admin-token-0001';
const NEW = 'the-new-admin-token-0002';
let pipeline: Pipeline;
const gateways: RunningGateway[] = [];

async function gatewayWith(env: Record<string, string>): Promise<RunningGateway> {
  const gateway = await startGateway(
    gatewayConfig({ ...pipeline.env, ADMIN_TOKEN_PREVIOUS: undefined, PORT: '0', HOST: '127.0.0.1', ...env }),
    pino({ level: 'silent' }),
  );
  gateways.push(gateway);
  return gateway;
}

/** The status of a scrape of each of `urls` with `token`, as Prometheus makes it. */
async function scrape(urls: string[], token: string): Promise<number[]> {
  return Promise.all(
    urls.map(async (url) => (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status),
  );
}

beforeAll(async () => {
  // The worker (its metrics port) and one gateway in the window already; the old gateway not yet moved.
  pipeline = await startPipeline({
    ADMIN_TOKEN: NEW,
    ADMIN_TOKEN_PREVIOUS: OLD,
    METRICS_PORT: '0',
    METRICS_HOST: '127.0.0.1',
  });
});
afterAll(async () => {
  for (const gateway of gateways) await gateway.stop();
  await pipeline?.stop();
});

it('rotates with no request refused: old fleet, window, new clients, previous dropped', async () => {
  const metrics = (gateway: RunningGateway) => `${gateway.url}/admin/metrics`;
  const worker = pipeline.worker!.metricsUrl!;
  const unmoved = await gatewayWith({ ADMIN_TOKEN: OLD });
  const moved = pipeline.gateway;
  // 1. Processes moving one by one: a client still on the old token is answered by every one of them.
  expect(await scrape([metrics(unmoved), metrics(moved), worker], OLD)).toEqual([200, 200, 200]);
  // 2. Every process moved (the last one restarted into the window): clients switch, in any order.
  await unmoved.stop();
  const last = await gatewayWith({ ADMIN_TOKEN: NEW, ADMIN_TOKEN_PREVIOUS: OLD });
  const fleet = [metrics(moved), metrics(last), worker];
  expect(await scrape(fleet, OLD)).toEqual([200, 200, 200]);
  expect(await scrape(fleet, NEW)).toEqual([200, 200, 200]);
  // Bull Board's Basic auth takes either as well.
  const basic = (token: string) => `Basic ${Buffer.from(`ops:${token}`).toString('base64')}`;
  for (const token of [OLD, NEW])
    expect((await fetch(`${last.url}/admin/queues`, { headers: { authorization: basic(token) } })).status).toBe(200);
  // A wrong token is still refused, in the window too.
  expect(await scrape(fleet, 'not-the-admin-token-at-all')).toEqual([401, 401, 401]);
  // 3. Clients all on the new token: the previous one is dropped, and refused from then on.
  const closed = await gatewayWith({ ADMIN_TOKEN: NEW });
  expect(await scrape([metrics(closed)], NEW)).toEqual([200]);
  expect(await scrape([metrics(closed)], OLD)).toEqual([401]);
});

it('ADMIN_TOKEN_PREVIOUS without ADMIN_TOKEN is a configuration error naming both', () => {
  expect(() => gatewayConfig({ ADMIN_TOKEN_PREVIOUS: OLD })).toThrow(
    /ADMIN_TOKEN_PREVIOUS is set but ADMIN_TOKEN is not/,
  );
  expect(() => workerConfig({ ADMIN_TOKEN_PREVIOUS: OLD })).toThrow(
    /ADMIN_TOKEN_PREVIOUS is set but ADMIN_TOKEN is not/,
  );
});
