import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, expect, it } from 'vitest';
import { type FakeAirtable, startFakeAirtable } from '../support/airtable-server.ts';

// The local Airtable judged its 5-a-second limit by when the test's event loop read each request. Six
// requests sent 250 ms apart (never more than five in a second) reached it while that loop was busy for
// 1.6 s, were read together, and the sixth was answered 429 (with 30 s of lock-out): the failure seen as
// airtable-requests-stall-after-unanswered-writes under load. Arrivals are now stamped on a thread of its own.
let server: FakeAirtable | undefined;
const LIMIT = { requests: 5, windowMs: 1_000 };
/** 250 ms: a quarter more than the limit's spacing, so never more than five in a second. */
const SENT_EVERY_MS = (LIMIT.windowMs / LIMIT.requests) * 1.25;
afterAll(() => server?.close());

it('a limit judged by arrival: requests sent within it pass while the test loop is busy', async () => {
  server = await startFakeAirtable({
    apiKey: 'patBusy',
    rateLimit: { ...LIMIT, lockoutMs: 30_000 },
  });
  // The sender is a process of its own, so it keeps its pace while this loop is blocked.
  const sender = spawn(
    process.execPath,
    [
      '-e',
      `const url = ${JSON.stringify(`${server.url}/v0/appBusy/Creators`)};
       const send = () => fetch(url, { method: 'POST', headers: { authorization: 'Bearer patBusy', 'content-type': 'application/json' },
         body: JSON.stringify({ records: [{ fields: { Name: 'x' } }] }) }).then((r) => r.status);
       (async () => { const answers = []; for (let i = 0; i < 6; i++) { answers.push(send()); await new Promise((r) => setTimeout(r, ${SENT_EVERY_MS})); }
         console.log(JSON.stringify(await Promise.all(answers))); })();`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  sender.stdout!.on('data', (d) => (out += d));
  // Busy for longer than the six take to be sent: none is read until the loop is free again.
  const busyUntil = Date.now() + 1_600;
  while (Date.now() < busyUntil) {}
  await once(sender, 'exit');
  expect(JSON.parse(out)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(server.stats.rateLimited).toBe(0);
});

it('and six sent at once still break it: the sixth is answered 429', async () => {
  const own = await startFakeAirtable({
    apiKey: 'patAtOnce',
    rateLimit: { ...LIMIT, lockoutMs: 30_000 },
  });
  try {
    const send = () =>
      fetch(`${own.url}/v0/appAtOnce/Creators`, {
        method: 'POST',
        headers: { authorization: 'Bearer patAtOnce', 'content-type': 'application/json' },
        body: JSON.stringify({ records: [{ fields: { Name: 'x' } }] }),
      }).then((r) => r.status);
    const answers = await Promise.all(Array.from({ length: 6 }, send));
    expect(answers.filter((s) => s === 429)).toHaveLength(1);
    expect(own.stats.rateLimited).toBe(1);
  } finally {
    await own.close();
  }
});
