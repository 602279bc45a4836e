// Pure: the price list as purchasable catalog items, the one source both checkout protocols price from.
import type { PriceList } from './price-list.ts';

export type BillingInterval = 'month' | 'year';

export interface CatalogItem {
  id: string;
  kind: 'plan' | 'add_on';
  name: string;
  description: string;
  /** Integer minor units (cents). */
  unitAmount: number;
  currency: 'usd';
  interval: BillingInterval;
  plan?: string;
  trialDays: number;
}

export function planItemId(slug: string, billing: 'monthly' | 'annual'): string {
  return `plan_${slug}_${billing}`;
}

export function buildCatalog(prices: PriceList): CatalogItem[] {
  const items: CatalogItem[] = [];
  for (const p of prices.plans) {
    items.push({
      id: planItemId(p.slug, 'monthly'),
      kind: 'plan',
      name: `${p.name} (monthly)`,
      description: p.description,
      unitAmount: p.monthlyPriceCents,
      currency: 'usd',
      interval: 'month',
      plan: p.slug,
      trialDays: prices.trialDays,
    });
    items.push({
      id: planItemId(p.slug, 'annual'),
      kind: 'plan',
      name: `${p.name} (annual)`,
      description: p.description,
      unitAmount: p.annualPriceCents,
      currency: 'usd',
      interval: 'year',
      plan: p.slug,
      trialDays: prices.trialDays,
    });
  }
  for (const a of prices.addOns) {
    items.push({
      id: a.id,
      kind: 'add_on',
      name: a.name,
      description: a.description,
      unitAmount: a.priceCents,
      currency: 'usd',
      interval: 'month',
      trialDays: 0,
    });
  }
  return items;
}

export function findCatalogItem(catalog: readonly CatalogItem[], id: string): CatalogItem | undefined {
  return catalog.find((i) => i.id === id);
}
