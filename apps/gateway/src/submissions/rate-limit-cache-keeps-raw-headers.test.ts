import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { createRateLimit } from './rate-limit.ts';

// Issue 19, item 2: the limiter remembered each client's hash keyed by the address string as it came,
// and with TRUST_PROXY that string is whatever the header held: 5,000 distinct 12 KB values grew the
// gateway by 66 MB. What it keeps must not grow with the length of what a client sends.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

it('5,000 distinct 12 KB "addresses" leave no more than a few MB behind', () => {
  const limiter = createRateLimit({ requests: 600, windowSeconds: 60 });
  gc();
  const before = process.memoryUsage().heapUsed;
  const keys = new Set<string>();
  for (let i = 0; i < 5_000; i++) {
    // A flat string of its own, as a header value is (a template would share one 12 KB string).
    const forged = Buffer.alloc(12 * 1024, 'x');
    forged.write(String(i).padStart(8, '0'));
    const key = limiter.forClient(forged.toString('latin1'))!.client;
    keys.add(key);
    limiter.refused(key, 60_000);
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  expect(keys.size).toBe(5_000); // still told apart
  // The limiter in use after the measure (else it is garbage itself): it still refuses the last client.
  expect(limiter.waitFor([...keys].at(-1)!)).toBeGreaterThan(0);
  expect(grown).toBeLessThan(8 * 1024 * 1024);
});
