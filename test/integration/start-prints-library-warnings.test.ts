import { expect, inject, it } from 'vitest';
import { spawnStart } from '../support/spawn-start.ts';
import { eventually } from '../support/wait.ts';

/**
 * `pnpm start`'s launcher on the Node that runs this test (CI runs this file on Node 24 with the suite, and
 * again on Node 22), on the embedded CRM: it starts, the gateway answers, the worker delivers one
 * submission, SIGTERM drains and exits 0, and nothing but the app's own log was printed: on Node 20 the
 * AWS SDK printed a ten-line NodeVersionSupportWarning at every start, which a newcomer reads as a broken
 * install. Any warning from any library (the SDK's, a DeprecationWarning, an ExperimentalWarning) fails it.
 */
it(`starts, delivers and stops on Node ${process.versions.node} with no library warning`, async () => {
  // A first start, as a newcomer's: PGlite's initdb runs too, and prints nothing either.
  const start = await spawnStart(
    { REDIS_URL: inject('redisUrl'), QUEUE_NAME: `start-warnings-${process.pid}`, LOG_LEVEL: 'debug' },
    { firstStart: true },
  );
  try {
    const ready = await fetch(`${start.url}/readyz`);
    expect(ready.status).toBe(200);
    const answer = await fetch(`${start.url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@acme.io', name: 'Ada' }),
    });
    expect(answer.status).toBe(200);
    const { recordId } = (await answer.json()) as { recordId: string };
    // The worker's debug line for a completed job names the CRM record, which is the contact's id.
    const delivered = () =>
      start
        .output()
        .split('\n')
        .some((l) => l.includes('"delivered"') && l.includes(recordId));
    await eventually(async () => delivered(), { timeoutMs: 30_000 });
    start.signal('SIGTERM');
    expect(await start.exited).toEqual({ code: 0, signal: null });
  } finally {
    await start.stop();
  }
  expect(start.stderr()).toBe('');
  expect(start.output()).not.toMatch(/Warning|NodeVersionSupport/);
});
