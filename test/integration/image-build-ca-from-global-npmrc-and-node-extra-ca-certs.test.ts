import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeBuildSecrets } from '../../scripts/images/build-image.ts';

// Issue 54.3: `pnpm test:images` failed with SELF_SIGNED_CERT_IN_CHAIN on a machine whose proxy's authority
// is set only in the system npm's global config and NODE_EXTRA_CA_CERTS: the build asked `npm config get
// cafile` with the project's Node first on PATH, npm looked for its global config beside that Node, answered
// `null`, and the build got no certificate. Here a machine of that kind is laid out in real files (a system
// Node and npm with an etc/npmrc, the project's Node first on PATH, the user config hidden) and the secret
// the build would be given is read back. Real certificates: three of Node's own roots stand in for the
// system bundle, the proxy's authority and the extra one.
const [systemCa, proxyCa, extraCa] = rootCertificates.slice(0, 3).map((pem) => pem.trim());
let dir: string;
let env: NodeJS.ProcessEnv;
let project: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'image-ca-'));
  const file = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
    return join(dir, path);
  };
  // The system's Node and npm (npm-cli.js in its package folder, linked from bin/ as a package install does),
  // and the global config npm reads beside that Node: <prefix>/etc/npmrc.
  const npmCli = file('system/lib/node_modules/npm/bin/npm-cli.js', '');
  mkdirSync(join(dir, 'system/bin'));
  symlinkSync(process.execPath, join(dir, 'system/bin/node'));
  symlinkSync(npmCli, join(dir, 'system/bin/npm'));
  file('system/etc/npmrc', `cafile=${join(dir, 'proxy-ca.pem')}\n`);
  file('proxy-ca.pem', `${proxyCa}\n`);
  // The project's own Node, first on PATH as in every pnpm script: no npmrc beside it.
  project = join(dir, 'project');
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(process.execPath, join(project, 'node_modules/.bin/node'));
  env = {
    PATH: [join(project, 'node_modules/.bin'), join(dir, 'system/bin')].join(delimiter),
    // The user config hidden: HOME has no .npmrc, and the one named is not there.
    HOME: join(dir, 'home'),
    NPM_CONFIG_USERCONFIG: join(dir, 'home/no-npmrc'),
    // The proxy's authority in both places, as an administrator may set it.
    NODE_EXTRA_CA_CERTS: file('extra-ca.pem', `${extraCa}\n${proxyCa}\n`),
    SSL_CERT_FILE: file('system-bundle.pem', `${systemCa}\n`),
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `--secret` arguments and the two files they name, as buildah would read them. */
function secretsFor(environment: NodeJS.ProcessEnv) {
  const out = mkdtempSync(join(dir, 'secrets-'));
  const args = writeBuildSecrets(out, environment, project);
  return {
    args,
    npmrc: readFileSync(join(out, 'npmrc'), 'utf8'),
    ca: readFileSync(join(out, 'ca'), 'utf8'),
  };
}

const certificates = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

it("the build gets the system bundle, the global npm config's cafile and NODE_EXTRA_CA_CERTS, each once", () => {
  const secrets = secretsFor(env);
  expect(secrets.args).toEqual([expect.stringMatching(/^id=npmrc,src=/), expect.stringMatching(/^id=ca,src=/)]);
  expect(secrets.npmrc).toBe('cafile=/run/secrets/ca\n');
  // The proxy's authority is in the global config and NODE_EXTRA_CA_CERTS both: kept once.
  expect(certificates(secrets.ca)).toEqual([systemCa, proxyCa, extraCa]);
});

it('only the global npm config: its authority; only NODE_EXTRA_CA_CERTS: that one', () => {
  const { NODE_EXTRA_CA_CERTS: _extra, ...globalOnly } = env;
  expect(certificates(secretsFor(globalOnly).ca)).toEqual([systemCa, proxyCa]);
  const extraOnly = { ...env, PATH: join(project, 'node_modules/.bin') };
  expect(certificates(secretsFor(extraOnly).ca)).toEqual([systemCa, extraCa, proxyCa]);
});

it('no authority set anywhere: both secrets empty, as the Dockerfile expects', () => {
  const none = { ...env, PATH: join(project, 'node_modules/.bin'), NODE_EXTRA_CA_CERTS: undefined };
  expect(secretsFor(none)).toMatchObject({ npmrc: '', ca: '' });
});
