import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCertificateAuthority } from './find-certificate-authority.ts';
import { runCommand } from './run-command.ts';

/**
 * Builds one target of the Dockerfile as `docker build --target` would, from the repository root, with layer
 * caching (an unchanged lockfile reuses the dependency layer). Docker format, so HEALTHCHECK is kept (OCI
 * images have no field for it). Where this machine reaches the registry through a proxy with its own
 * certificate authority, the registry steps get it as the Dockerfile's `ca` build secret (writeBuildSecrets);
 * secrets never become part of a layer.
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
    const secrets = writeBuildSecrets(scratch, process.env, root);
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

/**
 * Writes the Dockerfile's two build secrets into `dir` and returns their `--secret` arguments: `ca`, the
 * certificate authorities npm and Node trust on this machine (find-certificate-authority.ts), and `npmrc`,
 * pointing npm and pnpm at it (`cafile=/run/secrets/ca`); both empty when the machine needs none.
 */
export function writeBuildSecrets(dir: string, env: NodeJS.ProcessEnv, root: string): string[] {
  const authority = findCertificateAuthority(env, root);
  writeFileSync(join(dir, 'npmrc'), authority ? 'cafile=/run/secrets/ca\n' : '');
  writeFileSync(join(dir, 'ca'), authority?.pem ?? '');
  return [`id=npmrc,src=${join(dir, 'npmrc')}`, `id=ca,src=${join(dir, 'ca')}`];
}
