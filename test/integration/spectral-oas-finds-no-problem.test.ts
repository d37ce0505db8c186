import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunningGateway } from '@forms/gateway';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runTool } from '../support/run-tool.ts';
import { startTestGateway } from '../support/test-gateway.ts';

// Issue 14.5: Spectral's spectral:oas ruleset warned 18 times on the served document (operation-description:
// the discovery files, /docs, /healthz, /readyz, DELETE /api/mcp).
let gateway: RunningGateway;
let dir: string;
beforeAll(async () => {
  gateway = await startTestGateway(inject('redisUrl'), {}, { selfBaseUrl: true });
  dir = await mkdtemp(join(tmpdir(), 'spectral-'));
});
afterAll(async () => {
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('Spectral (spectral:oas) on the served /openapi.json', () => {
  it('reports no error, warning, info or hint', async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, await (await fetch(`${gateway.url}/openapi.json`)).text());
    const ruleset = fileURLToPath(new URL('../spectral.yaml', import.meta.url));
    const run = await runTool('spectral', ['lint', file, '--ruleset', ruleset, '--format', 'json', '--quiet']);
    const problems = JSON.parse(run.stdout || '[]') as { code: string; message: string; path: string[] }[];
    expect(
      problems.map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`),
      run.stderr,
    ).toEqual([]);
  }, 60_000);
});
