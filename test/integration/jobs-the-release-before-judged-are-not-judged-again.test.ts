import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@forms/local-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { judged } from '../support/judged.ts';
import { oldCheckout } from '../support/old-checkout.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { type GatewayProcess, spawnApp } from '../support/spawn-app.ts';
import { validBody } from '../support/valid-bodies.ts';

// A rolling deploy crosses the move of the judge: gateways of the release before (41bc805, which judged in
// the request) queue what they did not hold, and new workers deliver it. Each is delivered or held exactly
// as that gateway judged it: the worker's own rules would hold the person's enquiry (a keyword of its), and
// do not, since a job without judge inputs was judged already.
const RELEASE_BEFORE = '41bc805';
let old: ReturnType<typeof oldCheckout>;
let pipeline: Pipeline;
let gateway: GatewayProcess;

function rulesFile(rules: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'rolling-')), 'rules.json');
  writeFileSync(file, JSON.stringify(rules));
  return file;
}

beforeAll(async () => {
  old = oldCheckout(RELEASE_BEFORE);
  // The new workers' rules hold anything that says "campaign"; the old gateways' hold nothing for it.
  pipeline = await startPipeline(
    { TRUST_PROXY: 'true', SPAM_RULES_FILE: rulesFile({ '*': { keywords: ['campaign'] } }) },
    { withWorker: false },
  );
  const port = await freePort();
  const started = await spawnApp(
    'gateway',
    { ...pipeline.env, LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', SPAM_RULES_FILE: '' },
    { root: old.root },
  );
  gateway = { ...started, url: `http://127.0.0.1:${port}` };
}, 90_000);
afterAll(async () => {
  gateway?.child.kill();
  await gateway?.exited;
  await pipeline?.stop();
  old?.remove();
});

let client = 0;
async function send(path: string, body: object) {
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${++client}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { recordId: string }).recordId;
}
const count = async (table: string, id: string) =>
  (await pipeline.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [id])).rows[0]!.n;

it("jobs the release before's gateway queued are delivered, and those it held stay held, as it judged them", async () => {
  const links = Array.from({ length: 10 }, (_, i) => `https://pills-${i}.example`).join(' ');
  const person = await send('/api/contact', {
    ...validBody('contact', `p-${randomUUID()}`),
    message: 'Could we talk about a creator campaign next month?',
  });
  const signup = await send('/api/creator-signup', validBody('creator-signup', `s-${randomUUID()}`));
  const bot = await send('/api/contact', { email: `rx-${randomUUID()}@mailinator.com`, message: links });
  const honeypot = await send('/api/creator-signup', {
    ...validBody('creator-signup', `h-${randomUUID()}`),
    website: 'x',
  });

  // As the old gateway left them: two queued with no judge inputs, two held with its reasons.
  const queued = await pipeline.queue.getJobs(['waiting']);
  expect(queued.map((j) => j.data.judge)).toEqual([undefined, undefined]);
  type Held = { recordId: string; reasons: string[]; quarantinedAt: string };
  const heldNow = async () =>
    ((await runOps(['spam', 'list', '--json'], pipeline.env)).json.submissions as Held[]).map((s) => [
      s.recordId,
      s.reasons,
      s.quarantinedAt,
    ]);
  const heldBefore = await heldNow();
  expect(heldBefore.map(([recordId, reasons]) => [recordId, reasons])).toEqual([
    [honeypot, ['honeypot:filled']],
    [bot, ['rules:disposable-domain', 'rules:too-many-links (10 > 8)']],
  ]);

  // The new worker delivers the two, judging neither again (its keyword would hold the person's).
  await pipeline.startWorker();
  expect(await judged(pipeline.queue)).toEqual({ delivered: 2 });
  expect([await count('contacts', person), await count('submissions', signup)]).toEqual([1, 1]);
  expect(await heldNow()).toEqual(heldBefore);
  expect(await count('contacts', bot)).toBe(0);
});
