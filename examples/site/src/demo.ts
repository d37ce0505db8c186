/**
 * `pnpm demo`: the whole pipeline (`pnpm start`: gateway + worker, Redis, PGlite, local S3) on :3000, and the
 * demo site on :8080, a different origin, which it allows in the gateway's FORM_REDIRECT_URLS. With API_URL set,
 * only the site starts, pointed at that gateway (whose own FORM_REDIRECT_URLS decides where a form lands).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RunningSite, startSiteServer } from './start-site-server.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const sitePort = Number(process.env.SITE_PORT ?? 8080);
let apiUrl = process.env.API_URL;
const pipeline = apiUrl
  ? undefined
  : // scripts/start.ts itself, not `pnpm start`: no package manager between, to report a Ctrl-C as a failure.
    spawn(process.execPath, ['scripts/start.ts'], {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        PORT: process.env.PORT ?? '3000',
        // The site's forms, posted with JavaScript off, name its thank-you page: the gateway must allow it.
        FORM_REDIRECT_URLS:
          process.env.FORM_REDIRECT_URLS ?? `http://127.0.0.1:${sitePort}/,http://localhost:${sitePort}/`,
      },
    });
apiUrl ??= `http://127.0.0.1:${process.env.PORT ?? 3000}`;

// Set before anything is waited for or printed: a Ctrl-C while the gateway starts, or just after the "demo
// site" line, stops the pipeline and exits 0 like any later one (without a handler, node dies of it).
let site: RunningSite | undefined;
let stopping = false;
function stop() {
  stopping = true;
  void site?.stop();
  if (!pipeline || pipeline.exitCode !== null || pipeline.signalCode !== null) process.exit(0);
  pipeline.kill('SIGINT');
  pipeline.once('exit', () => process.exit(0));
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

// Bounded wait for the gateway (PGlite's first start is slow on a busy machine): 120 tries, half a second apart.
for (let i = 0; i < 120 && !stopping; i++) {
  const up = await fetch(`${apiUrl}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  if (i === 119) console.error(`no gateway answered at ${apiUrl}/healthz; the site starts anyway`);
  await new Promise((r) => setTimeout(r, 500));
}

if (!stopping) {
  site = await startSiteServer({ apiUrl, port: sitePort });
  console.log(`demo site: ${site.url}  (gateway: ${apiUrl}); Ctrl-C to stop`);
  // A gateway started separately decides its own allowlist: without this site in it, a form posted with
  // JavaScript off is still stored, and lands on the gateway's own thank-you page instead of the site's.
  if (!pipeline)
    console.log(
      `forms posted with JavaScript off land on the gateway's own thank-you page unless that gateway allows this site: start it with FORM_REDIRECT_URLS=${site.url}/,http://localhost:${sitePort}/`,
    );
}
