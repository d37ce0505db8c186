import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOps } from '../support/ops-cli.ts';
import { postRaw } from '../support/post-raw.ts';
import { type StartProcess, spawnStart } from '../support/spawn-start.ts';
import { eventually } from '../support/wait.ts';

// Issue 53.4: a plain form's post gets no recordId back, `ops show <email>` answered "No submission found",
// and `ops erase --dry-run` was refused while `pnpm start` held its embedded PGlite. Now `ops show <email>`
// finds a person's submissions (delivered and held) by the contact's own derived id and their address, and
// every ops command runs beside a running `pnpm start` on its defaults (the erase through the running worker).
let start: StartProcess;
const email = `Maya.${randomUUID().slice(0, 8)}@BrightBrand.co`;
const NAVIGATE = { 'sec-fetch-mode': 'navigate', accept: 'text/html' };

beforeAll(async () => {
  start = await spawnStart({
    REDIS_URL: undefined,
    REDIS_CLUSTER_NODES: undefined,
    ERASURE_KEY: undefined,
    ID_KEY: undefined,
  });
}, 120_000);
afterAll(() => start?.stop());

const ops = (args: string[]) => runOps(args, { REDIS_URL: undefined, DATA_DIR: start.dataDir });

/** As a browser posts a form (fetch would send its own Sec-Fetch-Mode: cors). */
async function postForm(path: string, fields: Record<string, string>) {
  const res = await postRaw(`${start.url}${path}`, {
    headers: { ...NAVIGATE, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  expect(res.status).toBe(200);
  expect(res.text).toContain('<h1>Thank you</h1>');
}

describe('ops beside a running pnpm start (embedded PGlite)', () => {
  beforeAll(async () => {
    // Plain form posts (JavaScript off): two delivered, one held by the honeypot.
    await postForm('/api/contact', { email, name: 'Maya Patel', message: 'About a creator campaign.' });
    await postForm('/api/cpa-signup', { email });
    await postForm('/api/contact', { email, message: 'bot', website: 'https://spam.example' });
  }, 60_000);

  it('ops show <email> lists their submissions, delivered and held, whatever the case of the address', async () => {
    let shown: any;
    await eventually(
      async () => {
        shown = await ops(['show', email.toLowerCase(), '--json']);
        const states = (shown.json?.submissions ?? []).map((s: { state: string }) => s.state).sort();
        return JSON.stringify(states) === JSON.stringify(['delivered', 'delivered', 'held']);
      },
      { timeoutMs: 60_000, everyMs: 500, explain: () => JSON.stringify(shown?.json ?? shown?.stderr) },
    );
    expect(shown.code).toBe(0);
    const kinds = shown.json.submissions.map((s: { kind: string; state: string }) => `${s.kind} ${s.state}`).sort();
    expect(kinds).toEqual(['contact delivered', 'contact held', 'cpa-signup delivered']);
    const held = shown.json.submissions.find((s: { state: string }) => s.state === 'held');
    expect(held.reasons).toEqual(['honeypot:filled']);
    // The text form says the same; the address typed in another case finds the same person.
    const text = await ops(['show', email]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('held (spam quarantine');
    expect((await ops(['show', `nobody-${randomUUID()}@brightbrand.co`])).code).toBe(1);
  });

  it('ops erase --dry-run counts them in the CRM the running start holds, and changes nothing', async () => {
    const run = await ops(['erase', '--email', email, '--dry-run', '--json']);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.json).toMatchObject({ dryRun: true, quarantine: 1 });
    expect(run.json.crmRecords).toBeGreaterThanOrEqual(2);
    const after = await ops(['show', email, '--json']);
    expect(after.json.submissions).toHaveLength(3);
  });

  it('every other ops command answers beside it', async () => {
    for (const args of [['status'], ['failed'], ['audit'], ['spam', 'list'], ['replay', '--all', '--dry-run']]) {
      const run = await ops(args);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });
});
