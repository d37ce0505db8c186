import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from '@forms/local-services';
import { binPath } from './run-tool.ts';
import { sleep } from './wait.ts';

export type PrismProxy = { url: string; log: () => string; stop: () => Promise<void> };

/**
 * Stoplight Prism as a validating proxy: `prism proxy <document> <upstream>` forwards each request and
 * checks the request and the upstream's response against the document. Every finding comes back in an
 * `sl-violations` header (a JSON list whose `location` starts with "request" or "response"). Without
 * `--errors`, so that a request the document calls invalid is still forwarded (with it, Prism answers such
 * a request a 422 of its own and the gateway's answer is never checked).
 */
export async function startPrismProxy(documentFile: string, upstream: string, { timeoutMs = 60_000 } = {}) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    binPath('prism'),
    ['proxy', documentFile, upstream, '--port', String(port), '--host', '127.0.0.1'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + String(chunk)).slice(-200_000)));
  child.stderr?.on('data', (chunk) => (output = (output + String(chunk)).slice(-200_000)));
  const deadline = Date.now() + timeoutMs;
  while (!/Prism is listening/.test(output)) {
    if (child.exitCode !== null) throw new Error(`prism exited ${child.exitCode}: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism did not start within ${timeoutMs} ms: ${output}`);
    }
    await sleep(100);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  } satisfies PrismProxy;
}
