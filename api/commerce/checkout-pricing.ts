// Pure: prices a requested cart from the catalog (the one price source) and says what stops it being bought.
import { type BillingInterval, type CatalogItem, findCatalogItem } from '../domain/pricing/catalog.ts';

export interface RequestedItem {
  itemId: string;
  quantity: number;
}

export interface PricedLine {
  /** Stable across updates: derived from the item, so an agent can refer to it later. */
  id: string;
  itemId: string;
  kind: CatalogItem['kind'];
  name: string;
  description: string;
  plan: string | null;
  interval: BillingInterval;
  quantity: number;
  /** Integer cents per billing interval. */
  unitAmount: number;
  amount: number;
}

/** A reason the cart cannot be bought yet, pointing at the line (by item id) it is about, if any. */
export interface CartProblem {
  code: 'missing' | 'invalid';
  itemId: string | null;
  field: 'item' | 'quantity' | null;
  message: string;
}

export interface PricedCart {
  lines: PricedLine[];
  currency: 'usd';
  /** Sum of the lines, charged every interval once the trial ends (tax is assessed at continue_url). */
  subtotal: number;
  total: number;
  trialDays: number;
  /** The plan's billing interval, or null without a plan. */
  interval: BillingInterval | null;
  priceListVersion: string;
  problems: CartProblem[];
}

export type PricingResult = { cart: PricedCart } | { unknownItems: { index: number; itemId: string }[] };

export function lineIdFor(itemId: string): string {
  return `li_${itemId}`;
}

interface Merged {
  item: CatalogItem;
  quantity: number;
  index: number;
}

// Repeated ids are one line with the quantities added; the first mention is where problems point.
function merge(
  requested: readonly RequestedItem[],
  catalog: readonly CatalogItem[],
): Merged[] | PricingResult {
  const unknownItems: { index: number; itemId: string }[] = [];
  const byId = new Map<string, Merged>();
  for (const [index, r] of requested.entries()) {
    const item = findCatalogItem(catalog, r.itemId);
    const seen = item && byId.get(item.id);
    if (!item) unknownItems.push({ index, itemId: r.itemId });
    else if (seen) seen.quantity += r.quantity;
    else byId.set(item.id, { item, quantity: r.quantity, index });
  }
  return unknownItems.length > 0 ? { unknownItems } : [...byId.values()];
}

function problemsOf(merged: readonly Merged[]): CartProblem[] {
  const problems: CartProblem[] = [];
  const plans = merged.filter((m) => m.item.kind === 'plan');
  if (plans.length === 0) {
    problems.push({
      code: 'missing',
      itemId: null,
      field: null,
      message: 'Add a plan: every purchase is one plan (monthly or annual billing), optionally with add-ons.',
    });
  }
  for (const extra of plans.slice(1)) {
    problems.push({
      code: 'invalid',
      itemId: extra.item.id,
      field: 'item',
      message: `Only one plan can be bought at a time; remove ${extra.item.id} or ${plans[0]?.item.id}.`,
    });
  }
  for (const m of merged) {
    if (m.quantity > 1) {
      problems.push({
        code: 'invalid',
        itemId: m.item.id,
        field: 'quantity',
        message: `${m.item.name} is sold once per account; set its quantity to 1.`,
      });
    }
  }
  const plan = plans[0]?.item;
  for (const addOn of merged.filter((m) => m.item.kind === 'add_on')) {
    if (plan && addOn.item.interval !== plan.interval) {
      problems.push({
        code: 'invalid',
        itemId: addOn.item.id,
        field: 'item',
        message: `${addOn.item.name} is billed every ${addOn.item.interval}; combine it with a plan billed the same way.`,
      });
    }
  }
  return problems;
}

export function priceCart(
  requested: readonly RequestedItem[],
  catalog: readonly CatalogItem[],
  terms: { trialDays: number; priceListVersion: string },
): PricingResult {
  const merged = merge(requested, catalog);
  if (!Array.isArray(merged)) return merged;
  // Plans first, then add-ons, each in the order asked for: a stable, readable order for every protocol.
  const ordered = [...merged].sort((a, b) =>
    a.item.kind === b.item.kind ? a.index - b.index : a.item.kind === 'plan' ? -1 : 1,
  );
  const lines: PricedLine[] = ordered.map(({ item, quantity }) => ({
    id: lineIdFor(item.id),
    itemId: item.id,
    kind: item.kind,
    name: item.name,
    description: item.description,
    plan: item.plan ?? null,
    interval: item.interval,
    quantity,
    unitAmount: item.unitAmount,
    amount: item.unitAmount * quantity,
  }));
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  return {
    cart: {
      lines,
      currency: 'usd',
      subtotal,
      total: subtotal,
      trialDays: terms.trialDays,
      interval: ordered.find((m) => m.item.kind === 'plan')?.item.interval ?? null,
      priceListVersion: terms.priceListVersion,
      problems: problemsOf(merged),
    },
  };
}
