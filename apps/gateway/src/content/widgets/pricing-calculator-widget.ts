import type { SiteContent } from '../content.ts';
import { escapeHtml as e } from '../html.ts';
import { widgetPage, type WidgetPage } from './widget-page.ts';

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
  const script = `
var form = document.getElementById('calc');
function money(n){ return DATA.currency + ' ' + n.toLocaleString(undefined, { maximumFractionDigits: 2 }); }
function update(){
  var creators = Math.max(0, Math.floor(Number(form.creators.value) || 0));
  var revenue = Math.max(0, Number(form.revenue.value) || 0);
  var total = creators * DATA.feePerCreator + revenue * DATA.revenueSharePercent / 100;
  document.getElementById('total').textContent = money(total);
}
form.addEventListener('input', update);
update();`;
  return widgetPage({ title: `${c.name}: pricing`, body, script, data: rates, origin });
}
