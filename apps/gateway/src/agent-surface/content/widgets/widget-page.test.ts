import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../config.ts';
import { CONTENT_DIR } from '../content-files.ts';
import { buildSite } from '../site.ts';

// Priced, so the pricing calculator is among the widgets too.
const site = buildSite(loadConfig({ PRICING_FEE_PER_CREATOR: '300', PRICING_REVENUE_SHARE_PERCENT: '12.5' }));
const file = (name: string) => readFileSync(join(CONTENT_DIR, name), 'utf8');
const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('widget pages', () => {
  it('inline the script and style files as they are on disk, and the CSP allows exactly those bytes', () => {
    expect(site.widgets.size).toBe(4);
    for (const name of site.widgets.keys()) {
      const served = site.files.get(`/ui/${name}.html`)!;
      const script = served.body.match(/<script>([\s\S]*)<\/script>/)![1]!;
      const style = served.body.match(/<style>([\s\S]*)<\/style>/)![1]!;
      expect(script, name).toContain(file('widgets/host-bridge.js'));
      expect(script.endsWith(file(`widgets/${name}.js`)), name).toBe(true);
      expect(style, name).toBe(file('widgets/widget.css'));
      expect(served.csp, name).toContain(`script-src ${hash(script)};`);
      expect(served.csp, name).toContain(`style-src ${hash(style)};`);
    }
  });

  it('/docs carries documents/docs.css, allowed by its hash', () => {
    const docs = site.files.get('/docs')!;
    const style = docs.body.match(/<style>([\s\S]*)<\/style>/)![1]!;
    expect(style).toBe(file('documents/docs.css'));
    expect(docs.csp).toContain(`style-src ${hash(style)};`);
  });
});
