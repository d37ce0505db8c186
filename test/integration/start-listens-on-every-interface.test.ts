import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWorkerMetrics, serveMetrics } from '@forms/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { REPO_ROOT } from '../support/spawn-app.ts';
import { listeningAddresses, type StartProcess, spawnStart } from '../support/spawn-start.ts';

// `pnpm start` is a laptop's: its gateway and the worker's admin port (/admin/metrics, POST /admin/erase)
// listen on loopback unless HOST / METRICS_HOST say otherwise, and each "listening" line prints the address
// the socket is bound to (read from the kernel's table here, not from the log).
let start: StartProcess;

beforeAll(async () => {
  start = await spawnStart({
    REDIS_URL: inject('redisUrl'),
    QUEUE_NAME: `start-listen-${randomUUID()}`,
    METRICS_PORT: '0',
    ADMIN_TOKEN: 'start-listen-admin-token',
  });
}, 120_000);
afterAll(() => start?.stop());

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

it('a second start on the same DATA_DIR is refused at once, naming the first', async () => {
  const second = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, REDIS_URL: 'redis://127.0.0.1:1', DATA_DIR: start.dataDir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  second.stdout.on('data', (d) => (output += d));
  second.stderr.on('data', (d) => (output += d));
  const [code] = await once(second, 'exit');
  expect(code, output).toBe(1);
  expect(output).toContain(`is open in process ${start.child.pid}`);
}, 60_000);
