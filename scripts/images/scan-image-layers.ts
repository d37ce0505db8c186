import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.ts';

/** Paths that hold credentials or a checkout, wherever they are in a layer. */
const SECRET_FILE =
  /(^|\/)(\.env(\.[\w.-]+)?|\.npmrc|\.yarnrc(\.yml)?|\.netrc|\.pgpass|\.git-credentials|\.git|\.ssh|\.aws|\.docker|id_(rsa|dsa|ecdsa|ed25519)|[\w.-]+\.(pem|key|p12|pfx))(\/|$)/;
/** Environment names whose value is a secret: one baked into the image config is in every copy of it. */
const SECRET_ENV = /(SECRET|PASSWORD|TOKEN|API_KEY|PRIVATE|CREDENTIAL|ACCESS_KEY)/i;
/** node_modules may ship test keys and certificates of their own; those are no secret of ours. */
const VENDORED = /(^|\/)node_modules\//;

/**
 * Reads every layer of an image as a registry would receive it (`buildah push` to an OCI layout, layers
 * uncompressed) and lists what must never be in one: a file that looks like a credential, an env file, a
 * git checkout, a build-time npmrc or certificate mount, or a secret-named variable with a value in the
 * image's config. Returns the findings (empty when clean) and the number of layers and files read.
 */
export async function scanImageLayers(image: string): Promise<{ findings: string[]; layers: number; files: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'forms-layers-'));
  try {
    await runCommand('buildah', ['push', '--quiet', '--disable-compression', image, `oci:${dir}/layout`]);
    const blob = (digest: string) => join(dir, 'layout/blobs', ...digest.split(':'));
    const index = JSON.parse(readFileSync(join(dir, 'layout/index.json'), 'utf8'));
    const manifest = JSON.parse(readFileSync(blob(index.manifests[0].digest), 'utf8'));
    const config = JSON.parse(readFileSync(blob(manifest.config.digest), 'utf8'));
    const findings: string[] = [];
    for (const entry of (config.config?.Env ?? []) as string[]) {
      const [name, value] = [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];
      if (SECRET_ENV.test(name) && value)
        findings.push(`${image}: its config sets ${name} (a secret has no place in an image)`);
    }
    let files = 0;
    for (const [n, layer] of (manifest.layers as { digest: string }[]).entries()) {
      const listing = (await runCommand('tar', ['-tf', blob(layer.digest)])).split('\n').filter(Boolean);
      files += listing.length;
      for (const path of listing) {
        const clean = path.replace(/^\.\//, '');
        if (clean.includes('.wh.')) continue; // a whiteout: the layer deletes the file
        if (SECRET_FILE.test(clean) && !VENDORED.test(clean)) findings.push(`${image}: layer ${n + 1} holds /${clean}`);
        if (/^run\/secrets\/./.test(clean)) findings.push(`${image}: layer ${n + 1} holds the build secret /${clean}`);
      }
    }
    return { findings, layers: manifest.layers.length, files };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
