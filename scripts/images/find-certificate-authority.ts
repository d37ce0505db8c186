import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parse } from 'ini';

/** What the image build is given as its `ca` secret: the certificates, and the files they came from. */
export type CertificateAuthority = { pem: string; sources: string[] };

/** Where Debian, Red Hat and Alpine keep the system's bundle; SSL_CERT_FILE names another. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

/**
 * The certificate authorities this machine's npm and Node trust beyond their own, found as they find them,
 * whichever Node runs this script (issue 54: with the project's Node first on PATH, as in every `pnpm`
 * script, `npm config get cafile` looked for the global config beside that Node and answered `null` on a
 * machine whose proxy's authority is in the system npm's global config, and the build got none):
 *
 * - npm's `cafile` and `ca`, from its environment (`npm_config_cafile`, `npm_config_ca`), the project's
 *   `.npmrc`, the user config (`NPM_CONFIG_USERCONFIG`, else `~/.npmrc`) and every global config an npm on
 *   PATH would read (`NPM_CONFIG_GLOBALCONFIG`, else `<prefix>/etc/npmrc` for the prefix of each `node` on
 *   PATH, or `NPM_CONFIG_PREFIX`, and the `globalconfig` an npm's built-in npmrc names, as Debian's does);
 * - Node's `NODE_EXTRA_CA_CERTS`.
 *
 * When any is found, the system bundle goes first (npm's `cafile` replaces the authorities it trusts by
 * default, so the build's npm trusts the public ones too). Undefined when none is: the build needs no secret.
 * Pure over `env` and the files it reads; `cwd` is the project's root.
 */
export function findCertificateAuthority(env: NodeJS.ProcessEnv, cwd: string): CertificateAuthority | undefined {
  const found: string[] = [];
  const pems: string[] = [];
  const fromFile = (file: string | undefined) => {
    if (!file || found.includes(file) || !existsSync(file)) return;
    found.push(file);
    pems.push(readFileSync(file, 'utf8'));
  };
  const fromConfig = (config: Record<string, unknown>, base: string, where: string) => {
    const cafile = expand(config.cafile, env);
    if (cafile) fromFile(resolve(base, cafile.replace(/^~(?=\/|$)/, env.HOME ?? '~')));
    for (const ca of [config.ca].flat()) {
      const pem = expand(ca, env);
      if (!pem?.includes('-----BEGIN')) continue;
      found.push(`ca in ${where}`);
      pems.push(pem);
    }
  };

  fromConfig(npmEnvironment(env), cwd, 'npm_config_ca');
  for (const file of npmrcFiles(env, cwd)) fromConfig(readNpmrc(file), dirname(file), file);
  fromFile(env.NODE_EXTRA_CA_CERTS);
  if (pems.length === 0) return undefined;

  const system = [env.SSL_CERT_FILE, ...SYSTEM_BUNDLES].find((file) => file && existsSync(file));
  const bundle = system && !found.includes(system) ? [readFileSync(system, 'utf8'), ...pems] : pems;
  return {
    pem: uniqueCertificates(bundle.join('\n')),
    sources: system ? [system, ...found.filter((f) => f !== system)] : found,
  };
}

/** npm's settings from its environment (`npm_config_<key>`, any case), as a config object. */
function npmEnvironment(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(env)) {
    const key = /^npm_config_(cafile|ca)$/i.exec(name)?.[1]?.toLowerCase();
    if (key && value) config[key] = value;
  }
  return config;
}

/** Every npmrc npm could read here, in its order: project, user, then each global config. */
function npmrcFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const user =
    env.NPM_CONFIG_USERCONFIG ?? env.npm_config_userconfig ?? (env.HOME ? join(env.HOME, '.npmrc') : undefined);
  const globals = env.NPM_CONFIG_GLOBALCONFIG ?? env.npm_config_globalconfig;
  const prefixes = [env.NPM_CONFIG_PREFIX ?? env.npm_config_prefix, env.PREFIX];
  const builtins: string[] = [];
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    // npm's prefix is two levels above the Node that runs it (<prefix>/bin/node, its real path); an npm
    // installed in a prefix (<prefix>/lib/node_modules/npm/bin/npm-cli.js) reads that prefix's config when
    // its own Node runs it; its built-in npmrc, in its package folder, may name the global config outright.
    const node = realpathIfThere(join(dir, 'node'));
    if (node) prefixes.push(dirname(dirname(node)));
    const npm = realpathIfThere(join(dir, 'npm'));
    if (!npm) continue;
    const npmRoot = dirname(dirname(npm));
    builtins.push(join(npmRoot, 'npmrc'));
    if (npmRoot.endsWith(join('lib', 'node_modules', 'npm'))) prefixes.push(dirname(dirname(dirname(npmRoot))));
  }
  const fromBuiltins = builtins.filter(existsSync).flatMap((file) => {
    const config = readNpmrc(file);
    const named = expand(config.globalconfig, env);
    const prefix = expand(config.prefix, env);
    return [named, prefix ? join(prefix, 'etc', 'npmrc') : undefined];
  });
  const files = [
    join(cwd, '.npmrc'),
    user,
    ...(globals ? [globals] : [...fromBuiltins, ...prefixes.map((p) => (p ? join(p, 'etc', 'npmrc') : undefined))]),
  ];
  return [...new Set(files.filter((file): file is string => !!file && existsSync(file)))];
}

function readNpmrc(file: string): Record<string, unknown> {
  return parse(readFileSync(file, 'utf8'));
}

function realpathIfThere(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** npm's `${VAR}` in a setting's value; a variable that is not set is left as written, as npm leaves it. */
function expand(value: unknown, env: NodeJS.ProcessEnv): string | undefined {
  if (typeof value !== 'string' || value === '' || value === 'null') return undefined;
  return value.replace(/\$\{([^${}]+)\}/g, (whole, name: string) => env[name] ?? whole);
}

/** Each certificate once, in the order first met (a bundle and a file it came from may repeat one). */
function uniqueCertificates(text: string): string {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return `${[...new Set(blocks.map((block) => block.replace(/\r\n/g, '\n')))].join('\n')}\n`;
}
