import { randomUUID } from 'node:crypto';
import { freePort } from '@forms/local-services';
import { expect, inject, it } from 'vitest';
import { spawnStart } from '../support/spawn-start.ts';

// A Ctrl-C in the terminal (SIGINT to the whole process group) or a SIGTERM of `pnpm start` drains and
// exits 0, with no package-manager error: `ELIFECYCLE Command failed` reads as a crash. The same for
// `pnpm demo`, which also must not warn `node_modules missing` (pnpm's note on a failed script). What failed:
// a `sh -c` between pnpm and node (the script's own, and the `node_modules/.bin/node` shim, which runs node
// without exec) dies of the SIGINT once its child exits 0 (dash), and pnpm reports that; tsx's CLI relays a
// signal only if its child confirms it within 30 ms, else kills it (exit 130), mid-drain on a busy machine;
// and the launcher set its signal handlers only after it said "listening on". The scripts now `exec` the
// real node binary (`$(node -p process.execPath)`) with `--import tsx`.
const env = () => ({ REDIS_URL: inject('redisUrl'), QUEUE_NAME: `start-signal-${randomUUID()}` });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  it(`${signal} of pnpm start drains and exits 0`, async () => {
    const start = await spawnStart(env(), { via: 'pnpm' });
    start.signal(signal);
    expect(await start.exited, start.output()).toEqual({ code: 0, signal: null });
    expect(start.output()).toContain('forms pipeline stopping');
    expect(start.output()).not.toMatch(/ELIFECYCLE|Command failed|did not stop|WARN/);
    await start.stop();
  }, 120_000);
}

// The demo's own handlers were set only after it printed "demo site:": a Ctrl-C while it waited for the
// gateway (PGlite's first start takes seconds), or in the moment after that line, killed it outright, and
// pnpm reported `ELIFECYCLE Command failed`.
for (const readyOn of ['site', 'gateway'] as const) {
  it(`Ctrl-C of pnpm demo once its ${readyOn} is up exits 0, with no package-manager warning`, async () => {
    const demo = await spawnStart(
      { ...env(), PORT: String(await freePort()), SITE_PORT: String(await freePort()) },
      { via: 'pnpm', script: 'demo', readyOn },
    );
    demo.signal('SIGINT');
    expect(await demo.exited, demo.output()).toEqual({ code: 0, signal: null });
    expect(demo.output()).toContain('forms pipeline stopping');
    expect(demo.output()).not.toMatch(/ELIFECYCLE|Command failed|node_modules missing|WARN/);
    await demo.stop();
  }, 180_000);
}
