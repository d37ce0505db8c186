import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { toolCatalogue } from './agent-catalogue.ts';
import { buildSite } from './site.ts';

const config = loadConfig({ PUBLIC_BASE_URL: 'https://agency.example', CONTACT_EMAIL: 'team@agency.example' });
const site = buildSite(config);
const texts = [...site.files.values()].filter((f) => f.path !== '/openapi.json' && f.path !== '/docs');

describe('the published agent surface', () => {
  it('fills every placeholder from PUBLIC_BASE_URL and CONTACT_EMAIL', () => {
    for (const file of texts) {
      expect(file.body, file.path).not.toMatch(/\{base_url\}|<CONTACT_EMAIL>|localhost/);
    }
    expect(site.files.get('/llms.txt')!.body).toContain('team@agency.example');
    expect(site.files.get('/llms.txt')!.body).toContain('https://agency.example/api/mcp');
  });

  it('states no price, percentage or result figure unless pricing is configured', () => {
    for (const file of texts) expect(file.body, file.path).not.toMatch(/[$£€]\s?\d|\d\s?%|\b(USD|GBP|EUR)\s?\d/);
    const priced = buildSite(loadConfig({ PRICING_FEE_PER_CREATOR: '300', PRICING_REVENUE_SHARE_PERCENT: '12.5' }));
    expect(priced.files.get('/pricing.md')!.body).toContain(
      'USD 300 per creator sourced and managed, plus 12.5% of affiliate revenue',
    );
    expect(priced.widgets.has('pricing-calculator')).toBe(true);
    expect(site.widgets.has('pricing-calculator')).toBe(false);
  });

  it('names the same tools everywhere they are listed', () => {
    const names = toolCatalogue(site.content).map((t) => t.name);
    for (const path of [
      '/agents.md',
      '/llms-full.txt',
      '/.well-known/mcp/manifest.json',
      '/.well-known/agent-card.json',
    ]) {
      for (const name of names) expect(site.files.get(path)!.body, `${path} ${name}`).toContain(name);
    }
    expect(site.files.get('/agents.md')!.body).not.toContain('get_pricing');
  });

  it('gives every widget a CSP naming the chat assistants, and an ETag that follows the bytes', () => {
    for (const [name, page] of site.widgets) {
      const file = site.files.get(`/ui/${name}.html`)!;
      expect(file.body).toBe(page.html);
      expect(file.csp).toContain("frame-ancestors 'self' https://chatgpt.com");
      expect(file.csp).toContain("connect-src 'self' https://agency.example");
      expect(file.csp).not.toContain('unsafe-inline');
    }
    const other = buildSite(loadConfig({ PUBLIC_BASE_URL: 'https://other.example' }));
    expect(other.files.get('/llms.txt')!.etag).not.toBe(site.files.get('/llms.txt')!.etag);
  });
});
