import type { RunningGateway } from '@forms/gateway';
import { WIDGET_NAMES } from '@forms/schemas';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from '../support/launch-chromium.ts';
import { openApiResponseCheck } from '../support/openapi-validator.ts';
import { startTestGateway } from '../support/test-gateway.ts';

// Never skipped: without Chromium, launchChromium fails saying what to install (scripts/setup.sh does).
describe('widgets in headless Chromium', () => {
  let gateway: RunningGateway;
  let browser: Browser;
  const check = openApiResponseCheck();
  const problems: string[] = [];

  beforeAll(async () => {
    gateway = await startTestGateway(inject('redisUrl'), {}, { selfBaseUrl: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  /** A page that records console errors (CSP violations among them) and checks API answers against OpenAPI. */
  async function open(path: string): Promise<{ page: Page; status: number; csp: string | null }> {
    const page = await browser.newPage();
    // CSP violations and script errors surface as console errors. "Failed to load resource" is the
    // browser's note on any 4xx, the contact form's intended 400 included; statuses are checked below.
    page.on(
      'console',
      (msg) =>
        msg.type() === 'error' &&
        !msg.text().startsWith('Failed to load resource') &&
        problems.push(`${path}: ${msg.text()}`),
    );
    page.on('requestfailed', (req) => problems.push(`${path}: ${req.url()} failed: ${req.failure()?.errorText}`));
    page.on('pageerror', (err) => problems.push(`${path}: ${err.message}`));
    page.on('response', async (res) => {
      if (!new URL(res.url()).pathname.startsWith('/api/')) {
        if (res.status() >= 400) problems.push(`${path}: ${res.url()} answered ${res.status()}`);
        return;
      }
      const headers = new Headers(await res.allHeaders());
      try {
        check(res.request().method(), res.url(), res.status(), headers, await res.text());
      } catch (err) {
        problems.push((err as Error).message);
      }
    });
    const response = await page.goto(`${gateway.url}${path}`);
    return { page, status: response!.status(), csp: response!.headers()['content-security-policy'] ?? null };
  }

  it.each(WIDGET_NAMES)('renders %s with a CSP that lets ChatGPT and Claude frame it', async (name) => {
    const { page, status, csp } = await open(`/ui/${name}.html`);
    expect(status).toBe(200);
    expect(csp).toMatch(/frame-ancestors 'self' .*https:\/\/chatgpt\.com/);
    expect(csp).toContain('https://claude.ai');
    expect(csp).toContain('https://*.oaiusercontent.com');
    expect(csp).toContain('https://*.claudemcpcontent.com');
    expect(await page.locator('h1').textContent()).toMatch(/\S/);
    if (name === 'services') expect(await page.locator('article.card').count()).toBe(6);
    if (name === 'case-studies') {
      const cards = page.locator('article[data-services]');
      const all = await cards.count();
      await page.getByRole('button', { name: 'Rebriefing playbook' }).click();
      const visible = await page.locator('article[data-services]:not([hidden])').count();
      expect(visible).toBeGreaterThan(0);
      expect(visible).toBeLessThan(all);
    }
    await page.close();
    expect(problems).toEqual([]);
  });

  it('the contact form shows a field error, then success', async () => {
    const { page } = await open('/ui/contact-form.html');
    await page.fill('#f-name', 'Sam Example');
    await page.fill('#f-email', 'not-an-email');
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('#error-email').textContent()).toContain('"email"');
    expect(await page.getAttribute('#f-email', 'aria-invalid')).toBe('true');
    expect(await page.locator('#status').getAttribute('class')).toContain('error');

    await page.fill('#f-email', 'sam@brand-example.io');
    await page.selectOption('#f-userType', 'brand');
    await page.fill('#f-message', 'We would like to talk about partnership ads.');
    await page.click('button[type=submit]');
    await expect.poll(() => page.locator('#status').getAttribute('class')).toContain('ok');
    expect(await page.locator('#status').textContent()).toMatch(/Thanks/);
    expect(await page.locator('#error-email').textContent()).toBe('');
    expect(await page.inputValue('#f-email')).toBe('');
    await page.close();
    expect(problems).toEqual([]);
  });
});
