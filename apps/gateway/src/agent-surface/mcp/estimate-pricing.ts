import type { PricingEstimate } from '@forms/schemas';
import type { GatewayConfig } from '../../config.ts';

type Rates = NonNullable<GatewayConfig['pricing']>;

const round = (n: number) => Math.round(n * 100) / 100;

/** Fees from the published rates: a fee per creator, plus the revenue share when revenue is given. */
export function estimatePricing(
  rates: Rates,
  { creators, affiliateRevenue }: { creators: number; affiliateRevenue?: number },
): PricingEstimate {
  const creatorFees = round(creators * rates.feePerCreator);
  const revenueShare =
    affiliateRevenue === undefined ? undefined : round((affiliateRevenue * rates.revenueSharePercent) / 100);
  const total = revenueShare === undefined ? undefined : round(creatorFees + revenueShare);
  const money = (n: number) => `${rates.currency} ${n}`;
  const note =
    `${creators} creators × ${money(rates.feePerCreator)} = ${money(creatorFees)} in creator fees, plus ${rates.revenueSharePercent}% of affiliate revenue` +
    (revenueShare === undefined
      ? '.'
      : ` (${money(revenueShare)} on ${money(affiliateRevenue!)}), ${money(total!)} in all.`) +
    ' An estimate only: every partnership is scoped before work starts.';
  return {
    currency: rates.currency,
    creators,
    feePerCreator: rates.feePerCreator,
    creatorFees,
    revenueSharePercent: rates.revenueSharePercent,
    ...(revenueShare === undefined ? {} : { revenueShare, total }),
    note,
  };
}
