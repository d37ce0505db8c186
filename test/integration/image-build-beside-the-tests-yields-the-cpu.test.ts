import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../support/spawn-app.ts';

// .ci/run builds the images beside the tests, meant to take only the CPU the tests leave. On a Linux that
// shares the CPU between sessions first (autogroup), `setsid nice -n 19` put the build in a session of its own
// whose share was half the two cores, whatever its nice: the integration tier took 233 s beside a build of the
// gateway's image and 185 s alone, and two busy loops beside two such low-priority ones took 7.3 s, not 3.9.
const AUTOGROUP = '/proc/self/autogroup';

it.skipIf(!existsSync(AUTOGROUP))("the background image build's session runs at the lowest priority", () => {
  const line = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8')
    .split('\n')
    .find((text) => text.includes('pnpm test:images --build-only'));
  expect(line).toBeDefined();
  // The command .ci/run starts it with, running a look at its own priority instead of the build.
  const [command = '', ...args] = line!.slice(0, line!.indexOf('pnpm test:images')).trim().split(/\s+/);
  const seen = execFileSync(command, [...args, 'sh', '-c', `cat ${AUTOGROUP}; nice`], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  expect(seen).toMatch(/ nice 19\n19\n$/);
});
