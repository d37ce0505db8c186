import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkerMetrics, serveMetrics } from '@forms/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { listeningAddresses, type StartProcess, spawnStart } from '../support/spawn-start.ts';

// `pnpm start` is a laptop's: its gateway and the worker's admin port (/admin/metrics, POST /admin/erase)
// listen on loopback unless HOST / METRICS_HOST say otherwise, and each "listening" line prints the address
// the socket is bound to (read from the kernel's table here, not from the log).
const dataDir = mkdtempSync(join(tmpdir(), 'start-listen-'));
let start: StartProcess;

beforeAll(async () => {
  start = await spawnStart({
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `start-listen-${randomUUID()}`,
    DATA_DIR: dataDir,
    METRICS_PORT: '0',
    ADMIN_TOKEN: 'start-listen-admin-token',
  });
}, 120_000);
afterAll(async () => {
  start?.signal('SIGTERM');
  await start?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

it('the gateway and the worker admin port listen on 127.0.0.1 only, and say so', async () => {
  const gateway = new URL(start.url);
  expect(gateway.hostname).toBe('127.0.0.1');
  expect(listeningAddresses(Number(gateway.port))).toEqual(['127.0.0.1']);
  const admin = new URL(/"url":"(http:[^"]+\/admin\/metrics)"/.exec(start.output())![1]!);
  expect(admin.hostname).toBe('127.0.0.1');
  expect(listeningAddresses(Number(admin.port))).toEqual(['127.0.0.1']);
});

it('a server bound to every interface says 0.0.0.0, not 127.0.0.1', async () => {
  const server = await serveMetrics({
    registry: createWorkerMetrics().registry,
    port: 0,
    host: '0.0.0.0',
    adminToken: undefined,
  });
  try {
    const url = new URL(server.url);
    expect(url.hostname).toBe('0.0.0.0');
    expect(listeningAddresses(Number(url.port))).toEqual(['0.0.0.0']);
  } finally {
    await server.close();
  }
});
