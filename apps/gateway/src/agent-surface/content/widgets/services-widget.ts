import type { SiteContent } from '../content.ts';
import { escapeHtml as e } from '../html.ts';
import { type WidgetPage, widgetPage } from './widget-page.ts';

export function servicesWidget(c: SiteContent, origin: string): WidgetPage {
  const cards = c.services
    .map(
      (s) => `<article class="card" id="${s.id}" data-service="${s.id}">
<span class="badge">${e(s.kind)}</span>
<h2>${e(s.name)}</h2>
<p>${e(s.summary)}</p>
<p class="muted">For: ${e(s.forWho)}</p>
<ul>${s.includes.map((item) => `<li>${e(item)}</li>`).join('')}</ul>
<a href="mailto:${e(c.contactEmail)}?subject=${encodeURIComponent(s.name)}">Ask about ${e(s.name)}</a>
</article>`,
    )
    .join('\n');
  const body = `<main>
<h1>${e(c.name)}: services</h1>
<p class="lede">${e(c.tagline)} Pricing: ${e(c.pricing.approach)}</p>
<section class="grid" aria-label="Services">
${cards}
</section>
</main>`;
  return widgetPage({ name: 'services', title: `${c.name}: services`, body, origin });
}
