import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort } from '@forms/local-services';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PDF_TYPE, samplePdf } from '../support/cv-files.ts';
import { proseLines, readDoc } from '../support/docs.ts';
import { launchChromium } from '../support/launch-chromium.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

// Issue 48: the plain HTML forms the guides show are posted as written (the guides' example addresses
// swapped for this test's gateway and site) from Chromium with JavaScript disabled: each lands on the
// site's thank-you page, and its submission is in the queue.
const GUIDES = ['docs/site-forms.md', 'docs/careers.md', 'docs/api.md'];
const GATEWAY_IN_DOCS = 'https://forms.example.com';
const SITE_IN_DOCS = 'https://www.example.com';

/** The first ```html block of a guide that holds a form. */
function formIn(guide: string): string {
  const text = readDoc(guide);
  const block = /^ *```html\n([\s\S]*?)^ *```$/m.exec(text)?.[1];
  if (!block?.includes('<form')) throw new Error(`${guide} shows no plain HTML form`);
  return block;
}

let gateway: TestGateway;
let site: Server;
let siteUrl: string;
let browser: Browser;
let context: BrowserContext;
let page = '';

beforeAll(async () => {
  const port = await freePort();
  siteUrl = `http://127.0.0.1:${port}`;
  [gateway, browser] = await Promise.all([
    startTestGateway(inject('redisUrl'), { FORM_REDIRECT_URLS: `${siteUrl}/` }),
    launchChromium(),
  ]);
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/thanks.html' ? '<!doctype html><title>Thanks</title><h1>Thanks</h1>' : page);
  });
  await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
  context = await browser.newContext({ javaScriptEnabled: false });
}, 60_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (site) await new Promise((resolve) => site.close(resolve));
  await gateway?.stop();
});

describe('the guides’ plain HTML forms, posted by a browser with JavaScript off', () => {
  it('the guides hold no form outside a code block that a reader would copy instead', () => {
    for (const guide of GUIDES) expect(proseLines(readDoc(guide)).join('\n')).not.toContain('<form');
  });

  for (const guide of GUIDES) {
    it(`${guide}: lands on the thank-you page and is queued`, async () => {
      const html = formIn(guide);
      expect(html).toContain(`action="${GATEWAY_IN_DOCS}/api/`);
      page = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Form</title>${html
        .replaceAll(GATEWAY_IN_DOCS, gateway.url)
        .replaceAll(SITE_IN_DOCS, siteUrl)}</html>`;
      const tab = await context.newPage();
      await tab.goto(`${siteUrl}/form.html`);
      const email = `docs-${randomUUID()}@acme.io`;
      // What a person fills: every required field, the email, and a CV where the form takes one.
      for (const input of await tab.locator('input[required], textarea[required]').all()) {
        const name = await input.getAttribute('name');
        await input.fill(name === 'email' || name === 'workEmail' ? email : 'Ada Lovelace');
      }
      for (const file of await tab.locator('input[type=file]').all())
        await file.setInputFiles({ name: 'ada-cv.pdf', mimeType: PDF_TYPE, buffer: samplePdf() });
      await tab.click('button');
      await tab.waitForURL(`${siteUrl}/thanks.html`);
      const jobs = await gateway.jobs();
      expect(jobs.filter((job) => JSON.stringify(job.data).includes(email))).toHaveLength(1);
      await tab.close();
    });
  }
});
