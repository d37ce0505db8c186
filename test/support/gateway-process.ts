import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '@forms/local-services';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GATEWAY_MAIN = fileURLToPath(new URL('../../apps/gateway/src/main.ts', import.meta.url));

export type GatewayProcess = { url: string; child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** Runs apps/gateway's main.ts as its own process on a free 127.0.0.1 port, with `env` added to ours. */
export async function spawnGateway(env: Record<string, string>): Promise<GatewayProcess> {
  const port = await freePort();
  // `node --import tsx` rather than the tsx CLI, so a signal reaches the gateway itself (see worker-process.ts).
  const child = spawn(process.execPath, ['--import', 'tsx', GATEWAY_MAIN], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const deadline = Date.now() + 60_000;
  while (!output.includes('gateway listening on')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`gateway did not start (exit code ${child.exitCode}):\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, child, output: () => output, exited };
}
