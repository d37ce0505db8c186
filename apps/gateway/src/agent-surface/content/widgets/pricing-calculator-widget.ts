import type { SiteContent } from '../content.ts';
import { escapeHtml as e } from '../html.ts';
import { type WidgetPage, widgetPage } from './widget-page.ts';

/** Only rendered when rates are configured; the arithmetic mirrors estimatePricing. */
export function pricingCalculatorWidget(c: SiteContent, origin: string): WidgetPage {
  const rates = c.pricing.rates!;
  const body = `<main>
<h1>${e(c.name)}: pricing estimate</h1>
<p class="lede">${e(c.pricing.approach)}</p>
<form id="calc" novalidate>
<label for="creators">Creators to source and manage<input id="creators" name="creators" type="number" min="1" step="1" value="10"></label>
<label for="revenue">Expected affiliate revenue (${e(rates.currency)}, optional)<input id="revenue" name="revenue" type="number" min="0" step="any"></label>
<p>Estimated fees: <output id="total" for="creators revenue"></output></p>
<p class="muted">An estimate only; every partnership is scoped before work starts.</p>
</form>
</main>`;
  return widgetPage({ name: 'pricing-calculator', title: `${c.name}: pricing`, body, data: rates, origin });
}
