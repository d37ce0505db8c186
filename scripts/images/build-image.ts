import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.ts';

/**
 * Builds one target of the Dockerfile as `docker build --target` would, from the repository root, with layer
 * caching (an unchanged lockfile reuses the dependency layer). Docker format, so HEALTHCHECK is kept (OCI
 * images have no field for it). Where this machine reaches the registry through a proxy with its own
 * certificate authority (npm's `cafile`), the registry steps get it as the Dockerfile's `ca` build secret,
 * with an `npmrc` secret naming it; secrets never become part of a layer.
 */
export async function buildImage({
  root,
  dockerfile,
  target,
  tag,
}: {
  root: string;
  dockerfile: string;
  target: string;
  tag: string;
}): Promise<{ seconds: number }> {
  const started = performance.now();
  const scratch = mkdtempSync(join(tmpdir(), 'forms-build-'));
  try {
    const cafile = (await runCommand('npm', ['config', 'get', 'cafile'])).trim();
    const hasCa = cafile !== '' && cafile !== 'null' && cafile !== 'undefined';
    writeFileSync(join(scratch, 'npmrc'), hasCa ? 'cafile=/run/secrets/ca\n' : '');
    writeFileSync(join(scratch, 'ca'), '');
    const secrets = [`id=npmrc,src=${join(scratch, 'npmrc')}`, `id=ca,src=${hasCa ? cafile : join(scratch, 'ca')}`];
    await runCommand(
      'buildah',
      [
        ...['bud', '--isolation', 'chroot', '--layers', '--format', 'docker', '--pull=never'],
        ...secrets.flatMap((secret) => ['--secret', secret]),
        ...['--file', dockerfile, '--target', target, '--tag', tag, root],
      ],
      { timeoutMs: 900_000 },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { seconds: (performance.now() - started) / 1000 };
}
