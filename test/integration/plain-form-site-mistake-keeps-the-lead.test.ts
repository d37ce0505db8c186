import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig as gatewayConfig, type RunningGateway, startGateway } from '@forms/gateway';
import { pino } from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { launchChromium } from '../support/launch-chromium.ts';
import { type Pipeline, startPipeline } from '../support/pipeline.ts';
import { eventually } from '../support/wait.ts';

// A site's mistake never costs a lead (docs/site-forms.md#plain-html-forms): a site whose thank-you page
// FORM_REDIRECT_URLS does not allow, posted by Chromium with JavaScript off. Its error pages, one per code
// (`_error` with `{error}` in the path), are allowed; its thank-you page is not.
const TOKEN = 'site-mistake-admin-token';
let pipeline: Pipeline;
let gateway: RunningGateway;
let site: Server;
let siteUrl: string;
let browser: Browser;
let context: BrowserContext;
const logs: Record<string, unknown>[] = [];

/** The site's pages: a careers form (with `_error`), a contact form (without), and a page per error code. */
function sitePage(path: string, api: string): string | undefined {
  const hidden = `<input type="hidden" name="_next" value="${siteUrl}/thanks.html">`;
  if (path === '/apply.html')
    return `<form method="post" action="${api}/api/careers-apply" enctype="multipart/form-data">
      ${hidden}<input type="hidden" name="_error" value="${siteUrl}/form-errors/{error}.html">
      <label>Name <input name="name"></label><label>Email <input name="email"></label>
      <label>Role <input name="role"></label><label>CV <input name="cvFile" type="file"></label>
      <button>Apply</button></form>`;
  if (path === '/apply-plain.html')
    return `<form method="post" action="${api}/api/careers-apply" enctype="multipart/form-data">
      ${hidden}<label>Name <input name="name"></label><label>Email <input name="email"></label>
      <label>Role <input name="role"></label><button>Apply</button></form>`;
  if (path === '/contact.html')
    return `<form method="post" action="${api}/api/contact">${hidden}
      <label>Email <input name="email"></label><label>Message <textarea name="message"></textarea></label>
      <button>Send</button></form>`;
  if (path === '/form-errors/CV_TOO_LARGE.html')
    return '<h1>Your CV is too large</h1><p>Please send one under 5 MiB.</p>';
  return undefined;
}

beforeAll(async () => {
  site = createServer((req, res) => {
    const html = sitePage(new URL(req.url ?? '/', siteUrl).pathname, gateway.url);
    res.writeHead(html ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(html ?? 'not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const [started, chromium] = await Promise.all([startPipeline(), launchChromium()]);
  pipeline = started;
  browser = chromium;
  // A gateway of the test's own, whose warnings it reads, beside the pipeline's worker and CRM.
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  gateway = await startGateway(
    gatewayConfig({
      ...pipeline.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_TOKEN: TOKEN,
      FORM_REDIRECT_URLS: `${siteUrl}/form-errors/`,
    }),
    logger,
  );
  context = await browser.newContext({ javaScriptEnabled: false });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await gateway?.stop();
  await pipeline?.stop();
  await new Promise((resolve) => site?.close(resolve));
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  expect((await page.goto(`${siteUrl}${path}`))!.status()).toBe(200);
  return page;
}

async function refusedCount(field: string): Promise<number> {
  const text = await (
    await fetch(`${gateway.url}/admin/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  ).text();
  const line = text.split('\n').find((l) => l.startsWith(`forms_form_redirects_refused_total{field="${field}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('a plain form (JavaScript off) on a site the gateway does not fully allow', () => {
  it('a _next off the allowlist: stored, the gateway thank-you page shown, a warning and the counter', async () => {
    const before = await refusedCount('_next');
    const page = await open('/contact.html');
    const email = `lead-${randomUUID()}@acme.io`;
    await page.fill('[name=email]', email);
    await page.fill('[name=message]', 'Sent from a site with the wrong allowlist.');
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/api/contact')),
      page.click('button'),
    ]);
    expect(answer.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Thank you');
    await eventually(async () => {
      const rows = await pipeline.db.query('SELECT kind FROM submissions WHERE email = $1', [email]);
      return rows.rows.length === 1;
    });
    expect(await refusedCount('_next')).toBe(before + 1);
    const warning = logs.find((entry) => String(entry.msg).startsWith('form redirect refused'));
    expect(warning).toMatchObject({ level: 40, field: '_next', origin: siteUrl, form: 'contact' });
    // The origin only: not the page, and nothing the person typed.
    expect(JSON.stringify(logs)).not.toContain(email);
    await page.close();
  });

  it('an oversized CV lands on the site _error page for its code, read whole or refused by its length', async () => {
    for (const extra of [5 * 1024 * 1024 + 1, 8 * 1024 * 1024]) {
      const page = await open('/apply.html');
      await page.fill('[name=name]', 'Ada');
      await page.fill('[name=email]', `big-${randomUUID()}@acme.io`);
      await page.fill('[name=role]', 'Engineer');
      const big = Buffer.concat([samplePdf(), Buffer.alloc(extra)]);
      await page.setInputFiles('[name=cvFile]', { name: 'big.pdf', mimeType: PDF_TYPE, buffer: big });
      await Promise.all([page.waitForURL(/\/form-errors\//), page.click('button')]);
      const landed = new URL(page.url());
      expect({ extra, path: landed.pathname, form: landed.searchParams.get('form') }).toEqual({
        extra,
        path: '/form-errors/CV_TOO_LARGE.html',
        form: 'careers-apply',
      });
      expect(landed.searchParams.get('error')).toBe('CV_TOO_LARGE');
      expect(await page.locator('h1').textContent()).toBe('Your CV is too large');
      await page.close();
    }
  });

  it("a missing field on the gateway's own page reads as a person would say it", async () => {
    const page = await open('/apply-plain.html');
    await page.fill('[name=name]', 'Ada');
    await page.fill('[name=email]', `norole-${randomUUID()}@acme.io`);
    const [answer] = await Promise.all([
      page.waitForResponse((res) => res.url().endsWith('/api/careers-apply')),
      page.click('button'),
    ]);
    expect(answer.status()).toBe(400);
    expect(await page.locator('h1').textContent()).toBe('Your form was not sent');
    expect(await page.locator('li').textContent()).toBe('Please fill in Role.');
    await page.close();
  });
});
