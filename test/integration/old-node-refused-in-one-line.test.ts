import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../support/spawn-app.ts';

// The scripts run TypeScript on Node's own type stripping. A Node without it (20, or 22 before 22.18)
// fails on the `.ts` entry itself, with ERR_UNKNOWN_FILE_EXTENSION, before the entry's first import (the
// version check) runs: a user who manages Node themselves got a loader's stack trace instead of the one line
// that says which Node is needed. Each script now imports the check, plain JavaScript, before the entry.
const OLD_NODE = '20.20.2';
const GUARD = '--import @forms/runtime/require-supported-node';

/** The registry's build of Node `version`, fetched once into a cache outside the checkout. */
function registryNode(version: string): string {
  return execFileSync('bash', [join(REPO_ROOT, 'scripts/registry-node.sh'), version], { encoding: 'utf8' }).trim();
}

/** Every package script that runs a TypeScript file on node, with its package folder. */
function typescriptScripts(): { where: string; name: string; command: string; entry: string }[] {
  return ['.', 'apps/gateway', 'apps/worker', 'apps/ops', 'examples/site'].flatMap((where) => {
    const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, where, 'package.json'), 'utf8'));
    return Object.entries(scripts as Record<string, string>).flatMap(([name, command]) => {
      const entry = /\bnode\b(?:\\?")?[^&|;]*?\s(\S+\.ts)\b/.exec(command)?.[1];
      return entry ? [{ where, name, command, entry }] : [];
    });
  });
}

it(`every script that runs TypeScript refuses Node ${OLD_NODE} in one line naming both versions`, () => {
  const scripts = typescriptScripts();
  expect(scripts.map((s) => s.name)).toEqual(expect.arrayContaining(['start', 'demo', 'ops', 'test:fast']));
  const old = registryNode(OLD_NODE);
  for (const { where, name, command, entry } of scripts) {
    expect(command, `${where} ${name}`).toContain(`${GUARD} ${entry}`);
    const run = spawnSync(old, [...GUARD.split(' '), entry], { cwd: join(REPO_ROOT, where), encoding: 'utf8' });
    expect({ script: `${where} ${name}`, status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      script: `${where} ${name}`,
      status: 1,
      stdout: '',
      stderr: `forms: Node 22.18 or newer is needed (24 LTS recommended; scripts/setup.sh brings it), found ${OLD_NODE}\n`,
    });
  }
});
