import type { SiteContent } from '../content.ts';
import { escapeHtml as e } from '../html.ts';
import { widgetPage, type WidgetPage } from './widget-page.ts';

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
  // A `service` argument from the host highlights that card.
  const script = `
document.addEventListener('tool-input', function(ev){
  var id = ev.detail && ev.detail.service; if (!id) return;
  var card = document.getElementById(id); if (!card) return;
  card.classList.add('highlight'); card.scrollIntoView({block:'nearest'});
});`;
  return widgetPage({ title: `${c.name}: services`, body, script, origin });
}
