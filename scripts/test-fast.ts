import { execFileSync, spawnSync } from 'node:child_process';
import { testFiles } from './test-tiers.ts';

/**
 * `pnpm test:fast`, the daily loop: biome, `pnpm typecheck` when a change touches TypeScript or JSON, the whole
 * unit tier, and the other in-process tiers' files the change touches: test files it edits or adds, and the
 * tests beside the code in the folders it edits. Fault and cluster tests are left to `pnpm test`.
 */
const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).split('\n').filter(Boolean);
const changed = [
  ...new Set([...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')]),
];
const folders = new Set(changed.map((file) => file.slice(0, file.lastIndexOf('/') + 1)));
const touched = testFiles().filter(
  ({ file, tier }) =>
    (tier === 'integration' || tier === 'postgres') &&
    (changed.includes(file) || (!file.startsWith('test/') && folders.has(file.slice(0, file.lastIndexOf('/') + 1)))),
);

function run(command: string, args: string[]) {
  console.log(`\n$ ${command} ${args.join(' ')}`);
  const { status } = spawnSync(command, args, { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}

run('pnpm', ['check']);
if (changed.some((file) => /\.(ts|json)$/.test(file))) run('pnpm', ['typecheck']);
run('pnpm', ['exec', 'vitest', 'run', '--project', 'unit']);
if (touched.length > 0)
  run('pnpm', [
    'exec',
    'vitest',
    'run',
    '--project',
    'integration',
    '--project',
    'postgres',
    ...touched.map((t) => t.file),
  ]);
