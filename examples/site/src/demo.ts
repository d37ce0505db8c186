/**
 * `pnpm demo`: the whole pipeline (`pnpm start`: gateway + worker, Redis, PGlite, local S3) on :3000, and the
 * demo site on :8080, a different origin. With API_URL set, only the site starts, pointed at that gateway.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startSiteServer } from './start-site-server.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const sitePort = Number(process.env.SITE_PORT ?? 8080);
let apiUrl = process.env.API_URL;
const pipeline = apiUrl
  ? undefined
  : // scripts/start.ts itself, not `pnpm start`: no package manager between, to report a Ctrl-C as a failure.
    spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, PORT: process.env.PORT ?? '3000' },
    });
apiUrl ??= `http://127.0.0.1:${process.env.PORT ?? 3000}`;

// Bounded wait for the gateway (PGlite's first start is slow on a busy machine): 120 tries, half a second apart.
for (let i = 0; i < 120; i++) {
  const up = await fetch(`${apiUrl}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  if (i === 119) console.error(`no gateway answered at ${apiUrl}/healthz; the site starts anyway`);
  await new Promise((r) => setTimeout(r, 500));
}

const site = await startSiteServer({ apiUrl, port: sitePort });
console.log(`demo site: ${site.url}  (gateway: ${apiUrl}); Ctrl-C to stop`);

function stop() {
  void site.stop();
  pipeline?.kill('SIGINT');
  if (!pipeline) process.exit(0);
  pipeline.once('exit', () => process.exit(0));
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
