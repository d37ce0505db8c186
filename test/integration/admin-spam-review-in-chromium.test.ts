import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { HONEYPOT_FIELD, opsKeys } from '@forms/schemas';
import { Redis } from 'ioredis';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../support/launch-chromium.ts';
import { runOps } from '../support/ops-cli.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { validBody } from '../support/valid-bodies.ts';
import { eventually } from '../support/wait.ts';

// The quarantine reviewed in a browser (/admin/spam), with JavaScript off and then on: log in with the admin
// token (the browser's Basic prompt), release two held submissions at once, mark one as spam, purge one after
// its confirmation page, reveal one. The CRM has each released one exactly once (a second release, from the
// CLI, adds nothing), the audit trail names each action with the page as its actor, the filter's model
// counts the labels, and the list shows what was reviewed. axe-core finds no violation on the pages.
const TOKEN = 'admin-token-for-the-review-page-0123';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let pipeline: Pipeline;
let browser: Browser;
let client = 0;
let redis: Redis;

beforeAll(async () => {
  [pipeline, browser] = await Promise.all([
    startPipeline({ ADMIN_TOKEN: TOKEN, TRUST_PROXY: 'true', OPS_ACTOR: 'cli-reviewer' }),
    launchChromium(),
  ]);
  redis = new Redis(inject('redisUrl'));
}, 120_000);
afterAll(async () => {
  redis?.disconnect();
  await browser?.close();
  await pipeline?.stop();
});

/** Five held submissions (the honeypot holds each), their ids and addresses, newest last. */
async function holdFive(): Promise<{ id: string; email: string }[]> {
  const held: { id: string; email: string }[] = [];
  for (let i = 0; i < 5; i++) {
    const body = validBody('creator-signup', `held-${i}-${randomUUID()}`);
    const res = await fetch(`${pipeline.gateway.url}/api/creator-signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${++client}` },
      body: JSON.stringify({ ...body, [HONEYPOT_FIELD]: 'https://autofill.example' }),
    });
    expect(res.status).toBe(200);
    // A signup's recordId is its submission id, the quarantine's id for it.
    held.push({ id: ((await res.json()) as { recordId: string }).recordId, email: String(body.email) });
  }
  return held;
}

const rowsFor = async (id: string) =>
  (await pipeline.db.query<{ n: number }>('SELECT count(*)::int AS n FROM submissions WHERE id = $1', [id])).rows[0]!.n;

async function modelCounts(ids: string[]) {
  const key = opsKeys({ prefix: 'bull' }, String(pipeline.env.QUEUE_NAME)).spamModel;
  const [spam, ham, ...labels] = await redis.hmget(key, 'docs:spam', 'docs:ham', ...ids.map((id) => `t:${id}`));
  return { spam: Number(spam ?? 0), ham: Number(ham ?? 0), labels };
}

async function expectNoAxeViolations(page: Page) {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const result = await (globalThis as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: { id: string; nodes: { target: unknown }[] }) => ({
      id: v.id,
      nodes: v.nodes.map((n) => n.target),
    }));
  });
  expect(found, JSON.stringify(found)).toEqual([]);
}

describe.each([
  { javaScript: false, label: 'JavaScript off' },
  { javaScript: true, label: 'JavaScript on' },
])('the spam review page with $label', ({ javaScript }) => {
  it('releases two at once, marks one, purges one after confirming, reveals one; all audited and taught', async () => {
    const held = await holdFive();
    const [a, b, marked, purged, revealed] = held.map((h) => h.id) as [string, string, string, string, string];
    const before = await modelCounts([]);
    const context = await browser.newContext({
      javaScriptEnabled: javaScript,
      httpCredentials: { username: 'reviewer', password: TOKEN },
      baseURL: pipeline.gateway.url,
    });
    try {
      const page = await context.newPage();
      expect((await page.goto('/admin/spam'))!.status()).toBe(200);
      for (const { id } of held) expect(await page.getByRole('rowheader', { name: id }).count()).toBe(1);
      const list = await page.content();
      for (const { id, email } of held) {
        expect(list).toContain(id);
        expect(list).not.toContain(email); // masked
      }
      expect(list).toContain('Hidden field filled');

      // Narrowed to a layer that held none of them: none listed.
      await page.goto('/admin/spam?layer=akismet');
      expect(await page.content()).not.toContain(a);
      await page.goto('/admin/spam?layer=honeypot&age=hour');
      expect(await page.content()).toContain(a);

      // Release two at once: check both, press the bulk button.
      await page.getByLabel(`Pick ${a}`, { exact: true }).check();
      await page.getByLabel(`Pick ${b}`, { exact: true }).check();
      await page.getByRole('button', { name: 'Release checked (deliver; not spam)' }).click();
      await page.waitForURL(/notice=/);
      expect(await page.getByRole('status').textContent()).toContain('Released 2');
      expect(await page.content()).not.toContain(`>${a}<`);

      // Mark one: it stays, shown as reviewed.
      await page.getByRole('button', { name: `Mark spam ${marked}`, exact: true }).click();
      await page.waitForURL(/notice=Marked/);
      expect(await page.getByRole('rowheader', { name: new RegExp(marked) }).textContent()).toMatch(
        /Reviewed: marked spam by admin-page/,
      );

      // Purge one: a confirmation page first, then gone.
      await page.getByRole('button', { name: `Purge ${purged}`, exact: true }).click();
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Purge 1 held submission for good?');
      if (javaScript) await expectNoAxeViolations(page);
      await page.getByRole('button', { name: 'Purge 1 for good' }).click();
      await page.waitForURL(/notice=Purged/);
      expect(await page.getByRole('status').textContent()).toContain('Purged 1.');
      expect(await page.content()).not.toContain(purged);
      if (javaScript) await expectNoAxeViolations(page);

      // Reveal one: its address, unmasked, on a page of its own.
      await page.getByRole('button', { name: `Reveal the fields of ${revealed}`, exact: true }).click();
      expect(await page.content()).toContain(held[4]!.email);
      if (javaScript) await expectNoAxeViolations(page);
    } finally {
      await context.close();
    }

    // Released again from the CLI (the same operation): already released, delivered once.
    const again = await runOps(['spam', 'release', a, b, '--json'], pipeline.env);
    expect(again.json).toMatchObject({ released: 0, alreadyReleased: 2 });
    await eventually(async () => (await rowsFor(a)) === 1 && (await rowsFor(b)) === 1);
    for (const id of [a, b]) expect((await pipeline.queue.getJob(id))!.attemptsMade).toBe(1);
    for (const id of [marked, purged, revealed]) expect(await rowsFor(id)).toBe(0);

    // The model counts the labels: two ham, one spam, each under its submission.
    const after = await modelCounts([a, b, marked]);
    expect({ spam: after.spam - before.spam, ham: after.ham - before.ham }).toEqual({ spam: 1, ham: 2 });
    expect(after.labels).toEqual(['ham', 'ham', 'spam']);

    // The audit trail names each action, the page as its actor.
    const audit = await runOps(['audit', '--json'], pipeline.env);
    const byPage = audit.json.actions
      .filter(
        (x: { actor: string; jobIds: string[] }) =>
          x.actor === 'admin-page' && x.jobIds.some((id) => held.some((h) => h.id === id)),
      )
      .map((x: { action: string; jobIds: string[]; changed: number }) => [x.action, [...x.jobIds].sort(), x.changed]);
    expect(byPage).toEqual([
      ['spam release', [a, b].sort(), 2],
      ['spam mark', [marked], 1],
      ['spam purge', [purged], 1],
      ['spam reveal', [revealed], 1],
    ]);
    expect(JSON.stringify(audit.json)).not.toContain('@');

    // The CLI's list shows the mark the page left.
    const listed = await runOps(['spam', 'list', '--json'], pipeline.env);
    const row = listed.json.submissions.find((s: { id: string }) => s.id === marked);
    expect(row.reviewed).toMatchObject({ label: 'spam', by: 'admin-page' });
  }, 120_000); // a browser walk of five pages, four ops runs and a delivery: seconds each on a busy machine
});
