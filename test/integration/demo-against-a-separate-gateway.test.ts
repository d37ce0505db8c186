import { randomUUID } from 'node:crypto';
import { freePort } from '@forms/local-services';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { launchChromium } from '../support/launch-chromium.ts';
import { runOps } from '../support/ops-cli.ts';
import { type StartProcess, spawnStart } from '../support/spawn-start.ts';
import { eventually } from '../support/wait.ts';

// Issue 53.1: `API_URL=… SITE_PORT=… pnpm demo` against a gateway started on its own (`pnpm start`, no
// FORM_REDIRECT_URLS) lost every form posted with JavaScript off: the gateway refused the demo's `_next` with
// a 400 and stored nothing. Now each is stored and the person sees the gateway's own thank-you page, and the
// demo says how to make that gateway allow the site.
let gateway: StartProcess;
let demo: StartProcess;
let siteUrl: string;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  const sitePort = await freePort();
  siteUrl = `http://127.0.0.1:${sitePort}`;
  [gateway, browser] = await Promise.all([
    spawnStart({ REDIS_URL: undefined, REDIS_CLUSTER_NODES: undefined, FORM_REDIRECT_URLS: undefined }),
    launchChromium(),
  ]);
  demo = await spawnStart(
    { API_URL: gateway.url, SITE_PORT: String(sitePort), FORM_REDIRECT_URLS: undefined },
    { via: 'pnpm', script: 'demo' },
  );
  context = await browser.newContext({ javaScriptEnabled: false });
}, 180_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await demo?.stop();
  await gateway?.stop();
});

it('says how to let the separate gateway send people back to the site', () => {
  expect(demo.output()).toContain(`start it with FORM_REDIRECT_URLS=${siteUrl}/`);
});

it("each of the demo's forms, JavaScript off, is stored and lands on the gateway's thank-you page", async () => {
  const forms: Record<string, (page: import('playwright-core').Page, email: string) => Promise<void>> = {
    contact: async (page, email) => {
      await page.fill('#contact [name=name]', 'Ada');
      await page.fill('#contact [name=email]', email);
      await page.fill('#contact [name=message]', 'From the demo, JavaScript off.');
    },
    signup: async (page, email) => page.fill('#signup [name=email]', email),
    webinar: async (page, email) => {
      await page.fill('#webinar [name=fullName]', 'Ada Lovelace');
      await page.fill('#webinar [name=workEmail]', email);
    },
    careers: async (page, email) => {
      await page.fill('#careers [name=name]', 'Ada');
      await page.fill('#careers [name=email]', email);
      await page.fill('#careers [name=role]', 'Engineer');
      await page.setInputFiles('#careers [name=cvFile]', { name: 'cv.pdf', mimeType: PDF_TYPE, buffer: samplePdf() });
    },
  };
  const emails: string[] = [];
  for (const [form, fill] of Object.entries(forms)) {
    const page = await context.newPage();
    await page.route(/^https:\/\//, (route) => route.abort());
    expect((await page.goto(siteUrl))!.status()).toBe(200);
    const email = `demo-${form}-${randomUUID().slice(0, 8)}@acme.io`;
    emails.push(email);
    await fill(page, email);
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url().startsWith(gateway.url)),
      page.click(`#${form} button`),
    ]);
    expect({ form, status: answer.status() }).toEqual({ form, status: 200 });
    expect(await page.locator('h1').textContent()).toBe('Thank you');
    await page.close();
  }
  for (const email of emails) {
    let shown: any;
    await eventually(
      async () => {
        shown = await runOps(['show', email, '--json'], { REDIS_URL: undefined, DATA_DIR: gateway.dataDir });
        return shown.json?.submissions?.[0]?.state === 'delivered';
      },
      { timeoutMs: 60_000, everyMs: 500, explain: () => `${email}: ${JSON.stringify(shown?.json ?? shown?.stderr)}` },
    );
  }
}, 180_000);
