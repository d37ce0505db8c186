import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forms/local-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ExampleRunner, exampleRunner, examplesIn, firstShBlock } from '../support/doc-examples.ts';
import { readDoc } from '../support/docs.ts';
import { seedPglite } from '../support/spawn-start.ts';

// Issue 49.5: the agents guide had no example request (a tester wrote the `tools/list` call from the MCP
// specification) and the careers guide no example body (the field names came from /openapi.json). Each now
// opens with one, and this runs each guide's first `sh` block beside `pnpm start` and compares what it
// prints with the `# ` lines under it, as the README's tour is run (test/support/doc-examples.ts has the
// rules; readme-tour-drifts-from-what-it-prints.test.ts).
const GUIDES = ['docs/agents.md', 'docs/careers.md'];

const dataDir = mkdtempSync(join(tmpdir(), 'guide-examples-'));
let runner: ExampleRunner;

beforeAll(async () => {
  // As a reader runs them: `pnpm start` with nothing configured, on the test's data folder and a free port.
  const { REDIS_URL: _r, REDIS_CLUSTER_NODES: _c, DATABASE_URL: _d, QUEUE_NAME: _q, ...inherited } = process.env;
  runner = exampleRunner({ ...inherited, DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'info' });
  await seedPglite(dataDir);
  await runner.run([{ command: 'pnpm start', expected: [] }], () => {});
}, 120_000);

afterAll(async () => {
  await runner?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

for (const guide of GUIDES) {
  it(`${guide}'s first example prints what it shows`, async () => {
    const examples = examplesIn(firstShBlock(readDoc(guide)));
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.every((example) => example.expected.length > 0)).toBe(true);
    await runner.run(examples, (example, printed, shown) =>
      expect({ guide, command: example.command, printed }).toEqual({ guide, command: example.command, printed: shown }),
    );
  }, 120_000);
}
