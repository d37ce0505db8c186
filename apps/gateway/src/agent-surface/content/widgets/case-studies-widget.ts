import type { SiteContent } from '../content.ts';
import { escapeHtml as e } from '../html.ts';
import { type WidgetPage, widgetPage } from './widget-page.ts';

export function caseStudiesWidget(c: SiteContent, origin: string): WidgetPage {
  const nameOf = (id: string) => c.services.find((s) => s.id === id)!.name;
  const used = c.services.filter((s) => c.caseStudies.some((cs) => cs.services.includes(s.id)));
  const chips = [`<button type="button" class="chip" data-filter="" aria-pressed="true">All</button>`]
    .concat(
      used.map(
        (s) => `<button type="button" class="chip" data-filter="${s.id}" aria-pressed="false">${e(s.name)}</button>`,
      ),
    )
    .join('');
  const cards = c.caseStudies
    .map(
      (cs) => `<article class="card" data-services="${cs.services.join(' ')}">
<span class="badge">Illustrative</span>
<h2>${e(cs.title)}</h2>
<p>${e(cs.situation)}</p>
<ol>${cs.approach.map((step) => `<li>${e(step)}</li>`).join('')}</ol>
<p class="muted">Measured by: ${e(cs.measuredBy.join('; '))}.</p>
<p class="muted">Services: ${e(cs.services.map(nameOf).join(', '))}</p>
</article>`,
    )
    .join('\n');
  const body = `<main>
<h1>${e(c.name)}: case studies</h1>
<p class="lede">${e(c.caseStudiesNote)}</p>
<div class="chips" role="group" aria-label="Filter by service">${chips}</div>
<section class="grid" aria-label="Case studies">
${cards}
</section>
</main>`;
  return widgetPage({ name: 'case-studies', title: `${c.name}: case studies`, body, origin });
}
