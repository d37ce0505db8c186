// DATA (the published rates) is declared by widget-page.ts ahead of this script. The arithmetic mirrors
// estimatePricing in mcp/estimate-pricing.ts.
const form = document.getElementById('calc');
const money = (n) => `${DATA.currency} ${n.toLocaleString(undefined, { maximumFractionDigits: 2 })}`;
function update() {
  const creators = Math.max(0, Math.floor(Number(form.creators.value) || 0));
  const revenue = Math.max(0, Number(form.revenue.value) || 0);
  const total = creators * DATA.feePerCreator + (revenue * DATA.revenueSharePercent) / 100;
  document.getElementById('total').textContent = money(total);
}
form.addEventListener('input', update);
update();
