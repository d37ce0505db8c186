import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ImageConfig } from './inspect-image.ts';
import type { PatchedFile } from './patched-dependencies.ts';
import { productionPackages as closureOf } from './production-packages.ts';
import { runCommand } from './run-command.ts';

/** Commands that have no place in a run-time image: package managers and build tools. */
const NOT_AT_RUN_TIME = [
  'npm',
  'npx',
  'corepack',
  'yarn',
  'yarnpkg',
  'pnpm',
  'gcc',
  'cc',
  'g++',
  'make',
  'python3',
  'git',
];

/**
 * What a final image holds, read from its filesystem: a non-root USER who cannot write /app, no package
 * manager or build tool on PATH, the files the app needs (`required`, relative to /app), and in
 * /app/node_modules only the app's production dependency closure (as `pnpm list --prod` gives it; an optional
 * peer such as valibot's `typescript` is reported, since pnpm satisfies it from the workspace), and every
 * package we patch (`patches`) carrying its patch's lines. Returns the
 * problems found, each naming what broke; `notes` are reported without failing.
 */
export async function checkImageContents({
  image,
  config,
  productionPackages,
  required,
  patches,
}: {
  image: string;
  config: ImageConfig;
  productionPackages: Set<string>;
  required: string[];
  patches: PatchedFile[];
}): Promise<{ problems: string[]; notes: string[] }> {
  const problems: string[] = [];
  const notes: string[] = [];
  const container = (await runCommand('buildah', ['from', '--pull=never', image])).trim();
  try {
    const root = (await runCommand('buildah', ['mount', container])).trim();
    const user = config.user.split(':')[0] ?? '';
    const passwd = readFileSync(join(root, 'etc/passwd'), 'utf8')
      .split('\n')
      .map((line) => line.split(':'));
    const entry = passwd.find(([name, , uid]) => name === user || uid === user);
    if (!user || user === 'root' || user === '0' || entry?.[2] === '0') {
      problems.push(`${image} runs as ${user || 'root (no USER)'}: it must run as an unprivileged user`);
    } else if (!entry) {
      problems.push(`${image}: its USER ${user} is not in /etc/passwd`);
    }
    const uid = Number(entry?.[2] ?? -1);
    const writable = writableBy(join(root, 'app'), uid, root);
    if (writable.length > 0)
      problems.push(`${image}: /app is writable by its user (${writable.slice(0, 3).join(', ')})`);
    for (const file of required) {
      if (!existsSync(join(root, 'app', file)))
        problems.push(`${image}: /app/${file} is missing (not copied into the image)`);
    }
    const path = (config.env.find((e) => e.startsWith('PATH='))?.slice(5) ?? '/usr/local/bin:/usr/bin:/bin').split(':');
    for (const command of NOT_AT_RUN_TIME) {
      const found = path.map((dir) => join(dir, command)).find((file) => existsSync(join(root, file)));
      if (found)
        problems.push(`${image}: ${found} is there at run time (no package manager or build tool belongs in it)`);
    }
    const store = join(root, 'app/node_modules/.pnpm');
    const installed = existsSync(store)
      ? readdirSync(store).filter((d) => d !== 'node_modules' && !d.endsWith('.yaml'))
      : [];
    const names = new Map(installed.map((dir) => [packageName(dir), dir]));
    const optionalPeers = new Set<string>();
    for (const dir of installed) {
      const manifest = join(store, dir, 'node_modules', packageName(dir), 'package.json');
      if (!existsSync(manifest)) continue;
      const meta = JSON.parse(readFileSync(manifest, 'utf8')).peerDependenciesMeta ?? {};
      for (const [peer, { optional }] of Object.entries(meta as Record<string, { optional?: boolean }>)) {
        if (optional) optionalPeers.add(peer);
      }
    }
    // An optional peer pnpm filled in, with what it needs, is reported, not refused.
    const peerClosure = new Set<string>();
    for (const peer of optionalPeers) {
      const dir = names.get(peer);
      if (!dir) continue;
      peerClosure.add(peer);
      for (const name of closureOf(join(store, dir, 'node_modules', peer))) peerClosure.add(name);
    }
    for (const [name, dir] of names) {
      if (productionPackages.has(name) || name.startsWith('@forms/')) continue;
      if (optionalPeers.has(name))
        notes.push(`${image}: ${name} is there as an optional peer (${sizeOf(join(store, dir))})`);
      else if (!peerClosure.has(name)) {
        problems.push(`${image}: ${name} is in /app/node_modules but is not a production dependency of the app`);
      }
    }
    for (const { name, file, added } of patches) {
      const dir = names.get(name);
      if (!dir) continue;
      const path = join(store, dir, 'node_modules', name, file);
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      if (!added.every((line) => text.includes(line)))
        problems.push(`${image}: ${name}'s ${file} is not patched (patches/ holds a patch the build did not apply)`);
    }
    const missing = [...productionPackages].filter((name) => !names.has(name) && !isPlatformOptional(name));
    for (const name of missing)
      problems.push(`${image}: production dependency ${name} is missing from /app/node_modules`);
  } finally {
    await runCommand('buildah', ['umount', container]).catch(() => {});
    await runCommand('buildah', ['rm', container]).catch(() => {});
  }
  return { problems, notes };
}

/** `@scope+name@1.2.3_peer…` (a .pnpm directory) → `@scope/name`. */
function packageName(dir: string): string {
  const plus = dir.startsWith('@') ? dir.replace('+', '/') : dir;
  return plus.slice(0, plus.indexOf('@', 1));
}

/** Optional dependencies built for other platforms (esbuild's, msgpackr's) are rightly absent. */
function isPlatformOptional(name: string): boolean {
  return /(darwin|win32|freebsd|android|linux-(arm|ia32|ppc|s390|riscv|loong|mips)|linux-x64-musl)/.test(name);
}

/** Files and folders under `dir` that the user `uid` may write (owner with w, or anyone with w). */
function writableBy(dir: string, uid: number, root: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if ((stat.uid === uid && stat.mode & 0o200) || stat.mode & 0o002) found.push(path.slice(root.length));
    if (stat.isDirectory() && !path.endsWith('node_modules/.pnpm') && found.length < 10) {
      for (const entry of readdirSync(path)) visit(join(path, entry));
    }
  };
  visit(dir);
  return found;
}

function sizeOf(dir: string): string {
  let bytes = 0;
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) return;
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
    else bytes += stat.size;
  };
  visit(dir);
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
