import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@forms/local-services';
import { runCommand } from './run-command.ts';

type ComposeService = {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: (string | { type: string; source: string })[];
  deploy?: { replicas?: number };
};

export type ComposeFacts = {
  /** The environment compose gives each service (interpolated with its defaults). */
  env: (service: string) => Record<string, string>;
  healthcheck: (service: string) => string[] | undefined;
};

/**
 * What the compose file says beyond the images, checked as far as a machine without a container engine
 * can: Debian's docker-compose (Docker's own v1 implementation; `config` needs no engine) interpolates it
 * and validates it against the Compose schema, refuses it without POSTGRES_PASSWORD, and its rendered
 * form is checked here for a consistent service graph (every dependency exists, `service_healthy` ones
 * have a health check, build targets are stages of the Dockerfile, bind-mounted files exist); nginx -t
 * accepts the shipped nginx.conf (Debian testing's nginx: `server … resolve` needs nginx 1.27.3 or newer);
 * a real redis-server starts from the shipped redis.conf with the settings the apps rely on.
 */
export async function checkComposeFiles({
  root,
  nginxImage,
  log,
}: {
  root: string;
  nginxImage: string;
  log: (line: string) => void;
}): Promise<ComposeFacts> {
  const composeFile = join(root, 'infra/compose.yaml');
  // Only what docker-compose needs to run: a variable set on this machine must not change the rendering.
  const { PATH, HOME } = process.env;
  const env = { PATH, HOME };
  const refused = await runCommand('docker-compose', ['-f', composeFile, 'config', '--quiet'], { env }).then(
    () => '',
    (err: Error) => err.message,
  );
  if (!refused.includes('POSTGRES_PASSWORD'))
    throw new Error('compose: the file renders without POSTGRES_PASSWORD; it must refuse to');
  const rendered = await runCommand('docker-compose', ['-f', composeFile, 'config'], {
    env: { ...env, POSTGRES_PASSWORD: 'image-check' },
  });
  const json = await new Promise<string>((resolve, reject) => {
    const python = spawn('python3', ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)']);
    let out = '';
    python.stdout.on('data', (chunk: Buffer) => (out += chunk));
    python.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error('compose: could not read the rendered file')),
    );
    python.stdin.end(rendered);
  });
  const services = (JSON.parse(json) as { services: Record<string, ComposeService> }).services;
  const problems: string[] = [];
  for (const [name, service] of Object.entries(services)) {
    for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
      const target = services[dependency];
      if (!target) problems.push(`${name} depends on ${dependency}, which is no service`);
      else if (condition === 'service_healthy' && !target.healthcheck) {
        problems.push(`${name} waits for ${dependency} to be healthy, which has no healthcheck`);
      }
    }
    if (service.build) {
      const dockerfile = join(service.build.context, service.build.dockerfile);
      const stages = existsSync(dockerfile) ? stagesOf(dockerfile) : [];
      if (!stages.includes(service.build.target ?? '')) {
        problems.push(
          `${name} builds target ${service.build.target} of ${service.build.dockerfile}, which has stages ${stages.join(', ')}`,
        );
      }
    }
    for (const volume of service.volumes ?? []) {
      const source = typeof volume === 'string' ? volume.split(':')[0]! : volume.type === 'bind' ? volume.source : '';
      if (source.startsWith('/') && !existsSync(source))
        problems.push(`${name} mounts ${source}, which does not exist`);
    }
  }
  if (problems.length > 0) throw new Error(`compose: ${problems.join('; ')}`);
  log(
    `compose: docker-compose config renders ${Object.keys(services).length} services (${Object.keys(services).join(', ')}); the graph is consistent; without POSTGRES_PASSWORD it refuses`,
  );

  const nginxConf = join(root, 'infra/nginx/nginx.conf');
  const container = (await runCommand('buildah', ['from', '--pull=never', nginxImage])).trim();
  try {
    const checked = await runCommand('buildah', [
      ...['run', '--isolation', 'chroot', '--volume', `${nginxConf}:/etc/nginx/nginx.conf:ro`, container],
      ...['--', 'sh', '-c', 'nginx -v 2>&1; nginx -t 2>&1'],
    ]).catch((err: Error) => {
      throw new Error(`nginx -t refuses infra/nginx/nginx.conf: ${err.message}`);
    });
    log(`nginx: ${checked.trim().split('\n').join(' / ')}`);
  } finally {
    await runCommand('buildah', ['rm', container]).catch(() => {});
  }

  await checkRedisConf(join(root, 'infra/redis/redis.conf'), log);
  return {
    env: (service) =>
      Object.fromEntries(Object.entries(services[service]?.environment ?? {}).map(([k, v]) => [k, v ?? ''])),
    healthcheck: (service) => services[service]?.healthcheck?.test,
  };
}

/** redis-server starts from the shipped file, and holds the settings BullMQ and our durability rely on. */
async function checkRedisConf(conf: string, log: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'forms-redis-conf-'));
  const port = await freePort();
  const server = spawn('redis-server', [conf, '--port', String(port), '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  server.stdout.on('data', (chunk: Buffer) => (output += chunk));
  try {
    const cli = (...args: string[]) => runCommand('redis-cli', ['-p', String(port), ...args]);
    const deadline = Date.now() + 10_000;
    while ((await cli('ping').catch(() => '')).trim() !== 'PONG') {
      if (server.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `redis-server refuses infra/redis/redis.conf:\n${output.trim().split('\n').slice(-5).join('\n')}`,
        );
      }
      await sleep(50);
    }
    const settings = (await cli('config', 'get', 'maxmemory-policy')).trim().split('\n')[1];
    const aof = (await cli('config', 'get', 'appendonly')).trim().split('\n')[1];
    if (settings !== 'noeviction' || aof !== 'yes') {
      throw new Error(`redis-server from infra/redis/redis.conf has maxmemory-policy ${settings}, appendonly ${aof}`);
    }
    log(`redis: redis-server started from infra/redis/redis.conf: maxmemory-policy ${settings}, appendonly ${aof}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

function stagesOf(dockerfile: string): string[] {
  return [...readFileSync(dockerfile, 'utf8').matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1] as string);
}
