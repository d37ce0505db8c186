import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forms/local-services';
import { afterAll, expect, it } from 'vitest';
import { type ExampleRunner, exampleRunner, examplesIn, section } from '../support/doc-examples.ts';
import { readDoc } from '../support/docs.ts';
import { seedPglite } from '../support/spawn-start.ts';

// Issue 30.11: the README's tour said its fourteen attempts took about 20 s (10.6 s measured), never said
// that `ops failed` run early prints `no failed jobs match`, and showed outputs no command printed. This runs
// the tour's `sh` blocks as a user would, on the embedded default (`pnpm start` with nothing configured: a Redis
// of its own, and the test's data folder and free port), and compares each command's output with the
// `# ` lines under it, by the rules in test/support/doc-examples.ts (the guides' first examples run the same
// way: guide-examples-drift-from-what-they-print.test.ts).

const dataDir = mkdtempSync(join(tmpdir(), 'readme-tour-'));
let runner: ExampleRunner | undefined;

afterAll(async () => {
  await runner?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('the README tour prints what it shows', async () => {
  // As a user runs it: no Redis named, so `pnpm start` starts its own in DATA_DIR and `pnpm ops` finds it
  // there (local.json); only the data folder and the port are the test's own.
  const { REDIS_URL: _r, REDIS_CLUSTER_NODES: _c, DATABASE_URL: _d, QUEUE_NAME: _q, ...inherited } = process.env;
  runner = exampleRunner({ ...inherited, DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'info' });
  // The data folder's PGlite as its first open leaves it (the tour compares what commands print, not how
  // long a first start takes: its initdb was a fifth of this test's CPU).
  await seedPglite(dataDir);
  const steps = examplesIn(section(readDoc('README.md'), '## A 30-second tour'));
  expect(steps.length).toBeGreaterThan(5);
  // The tour's premise: "while `pnpm start` runs".
  await runner.run([{ command: 'pnpm start', expected: [] }, ...steps], (step, printed, shown) =>
    expect({ command: step.command, printed }).toEqual({ command: step.command, printed: shown }),
  );
}, 300_000);

// Issue 49.5: the tour showed `con_01m88yjh…` beside `sub_01m88yjh…`, as if a contact's id were made from
// its submission's. A submission's id is a ULID (its first characters the time); a contact's is an HMAC of
// its email (apps/gateway/src/submissions/ids.ts), so the two share nothing.
it("the tour's contact ids do not look made from its submission ids", () => {
  const tour = section(readDoc('README.md'), '## A 30-second tour');
  const shown = (kind: string) =>
    new Set([...tour.matchAll(new RegExp(`\\b${kind}_([0-9a-z]+)…`, 'g'))].map((m) => m[1]!));
  const submissions = [...shown('sub')];
  expect(shown('con').size).toBeGreaterThan(0);
  for (const contact of shown('con'))
    expect(
      submissions.filter((sub) => sub.slice(0, 4) === contact.slice(0, 4)),
      `con_${contact}…`,
    ).toEqual([]);
});
