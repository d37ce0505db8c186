import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT, readDoc } from '../support/docs.ts';

// Every `pnpm <script>` the manual names (in prose, code spans and code blocks alike) is a script of the
// root package.json, or, after `--filter <package>`, of that package. pnpm's own commands are not scripts.
const PNPM_COMMANDS = new Set([
  'add',
  'deploy',
  'dlx',
  'exec',
  'i',
  'install',
  'pack',
  'remove',
  'run',
  'update',
  'why',
]);
const INVOCATION =
  /\bpnpm(?: +(?:-s|--silent))?(?: +--filter[ =](?<filter>[@\w/.-]+))?(?: +run)?(?: +(?<name>[a-z][\w:-]*))?/g;

function scriptsOf(dir: string): { name: string; scripts: Set<string> } {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8'));
  return { name: manifest.name, scripts: new Set(Object.keys(manifest.scripts ?? {})) };
}

const packages = new Map(
  ['apps', 'packages', 'examples']
    .flatMap((top) => readdirSync(join(REPO_ROOT, top)).map((dir) => scriptsOf(join(top, dir))))
    .map(({ name, scripts }) => [name, scripts]),
);
const rootScripts = scriptsOf('.').scripts;

function namedScripts(file: string): { where: string; filter: string | undefined; name: string }[] {
  return readDoc(file)
    .split('\n')
    .flatMap((line, index) =>
      [...line.matchAll(INVOCATION)].flatMap(({ groups }) =>
        groups?.name === undefined || PNPM_COMMANDS.has(groups.name)
          ? []
          : [{ where: `${file}:${index + 1}`, filter: groups.filter, name: groups.name }],
      ),
    );
}

describe('the manual names only pnpm scripts that exist', () => {
  it('finds the scripts it names', () => {
    const named = markdownFiles().flatMap(namedScripts);
    expect(named.map(({ name }) => name)).toEqual(expect.arrayContaining(['start', 'test', 'ops', 'bench:gateway']));
  });

  for (const file of markdownFiles()) {
    it(file, () => {
      const missing = namedScripts(file).filter(({ filter, name }) => {
        const scripts = filter === undefined ? rootScripts : packages.get(filter);
        return !scripts?.has(name);
      });
      expect(
        missing.map(({ where, filter, name }) => `${where}: pnpm ${filter ? `--filter ${filter} ` : ''}${name}`),
      ).toEqual([]);
    });
  }
});
