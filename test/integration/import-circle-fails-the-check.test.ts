import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/docs.ts';

// `pnpm check`'s import check, run as the check runs it (the repository's .dependency-cruiser.mjs) on small
// trees written here: each shape of circle the tree once had fails it, naming the files; a tree without one
// passes. (On the repository itself it is `pnpm check` that passes.)
const CHECK = 'depcruise --config .dependency-cruiser.mjs';

const CIRCLES: Record<string, Record<string, string>> = {
  // observe-jobs.ts ↔ worker-metrics.ts: a value each way.
  value: {
    'jobs.ts':
      "import { metrics } from './metrics.ts';\nexport const KINDS = ['a'] as const;\nexport const m = metrics;\n",
    'metrics.ts': "import { KINDS } from './jobs.ts';\nexport const metrics = KINDS.length;\n",
  },
  // otel-sdk.ts ↔ start-tracing.ts: types one way, a dynamic import the other.
  'type-and-dynamic': {
    'start.ts': "export type Options = { name: string };\nexport const start = () => import('./sdk.ts');\n",
    'sdk.ts': "import type { Options } from './start.ts';\nexport const sdk = (options: Options) => options.name;\n",
  },
  // open-eraser.ts → start-worker.ts → serve-metrics.ts → open-eraser.ts, the last edge a type.
  'three-files': {
    'eraser.ts': "import { openCrm } from './start.ts';\nexport type Eraser = { crm: typeof openCrm };\n",
    'start.ts': "import { serve } from './serve.ts';\nexport const openCrm = () => serve;\n",
    'serve.ts': "import type { Eraser } from './eraser.ts';\nexport const serve = (eraser: Eraser) => eraser;\n",
  },
};

const ACYCLIC = {
  'kinds.ts': "export const KINDS = ['a'] as const;\n",
  'jobs.ts': "import { KINDS } from './kinds.ts';\nexport const first = KINDS[0];\n",
  'metrics.ts':
    "import type { first } from './jobs.ts';\nimport { KINDS } from './kinds.ts';\nexport const n: typeof first = KINDS[0];\n",
};

const root = mkdtempSync(join(tmpdir(), 'import-circles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writeTree(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

function runCheck(dir: string): Promise<{ code: number; output: string }> {
  const [bin, ...args] = CHECK.split(' ');
  return new Promise((resolve) => {
    execFile(
      join(REPO_ROOT, 'node_modules/.bin', bin!),
      [...args, dir],
      { cwd: REPO_ROOT, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe('the import check', () => {
  it('is part of pnpm check', () => {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(manifest.scripts.check).toContain(CHECK);
  });

  it('fails on each shape of circle, naming its files', async () => {
    const trees = Object.fromEntries(Object.entries(CIRCLES).map(([name, files]) => [name, writeTree(name, files)]));
    const { code, output } = await runCheck(root);
    expect(code).not.toBe(0);
    expect(output).toMatch(/no-circular: .*value\/(jobs|metrics)\.ts/);
    expect(output).toMatch(/no-circular: .*type-and-dynamic\/(start|sdk)\.ts/);
    expect(output).toMatch(/no-circular: .*three-files\/(eraser|start|serve)\.ts/);
    expect(output).toContain(`${Object.keys(trees).length} dependency violations`);
  });

  it('passes a tree without one', async () => {
    const { code, output } = await runCheck(writeTree('acyclic', ACYCLIC));
    expect(output).toContain('no dependency violations found (3 modules, 3 dependencies cruised)');
    expect(code).toBe(0);
  });
});
