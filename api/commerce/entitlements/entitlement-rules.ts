// Pure: what an account's plan allows (its plan, add-ons and standing) and, given what it already
// uses, whether one more office, agent or integration, or a gated feature, is allowed.
import type { GatedFeature, Plan, PriceList } from '../../domain/pricing/price-list.ts';
import type { SubscriptionRecord, SubscriptionStatus } from '../subscriptions-repo.ts';

export type LimitName = keyof Plan['limits'];

/**
 * Statuses that keep a plan's entitlements. `past_due` is Stripe's retry period after a failed
 * renewal: access stays while the processor retries; `unpaid`, `paused` and `canceled` lose it.
 */
export const entitledStatuses: readonly SubscriptionStatus[] = ['trialing', 'active', 'past_due'];

export interface AccountEntitlements {
  accountId: string;
  /** The subscribed plan, when the account has a subscription naming a plan on the price list. */
  plan: Plan | undefined;
  status: SubscriptionStatus | undefined;
  /** True when the plan's limits and features apply; false: nothing may be added. */
  entitled: boolean;
  features: ReadonlySet<GatedFeature>;
}

export interface Refusal {
  code: 'plan_limit_reached' | 'plan_feature_unavailable';
  detail: string;
  /** Problem extension members: the plan (slug or null), the limit or feature, and the counts. */
  extensions: {
    plan: string | null;
    planStatus: SubscriptionStatus | null;
    limit: string;
    used?: number;
    allowed: number | null;
    upgradeUrl: string;
  };
}

/** What a subscription (or none) entitles its account to under this price list. */
export function entitlementsOf(
  prices: PriceList,
  accountId: string,
  s: SubscriptionRecord | undefined,
): AccountEntitlements {
  const plan = s ? prices.plans.find((p) => p.slug === s.plan) : undefined;
  const bought = new Set(s?.items.map((i) => i.itemId) ?? []);
  const addOns = prices.addOns.filter((a) => bought.has(a.id));
  return {
    accountId,
    plan,
    status: s?.status,
    entitled: plan !== undefined && s !== undefined && entitledStatuses.includes(s.status),
    features: new Set([...(plan?.entitlements ?? []), ...addOns.flatMap((a) => a.entitlements)]),
  };
}

const nouns: Record<LimitName, [string, string]> = {
  offices: ['office', 'offices'],
  agents: ['agent with integrations', 'agents with integrations'],
  integrations: ['integration', 'integrations'],
};

const count = (n: number, limit: LimitName) => `${n} ${nouns[limit][n === 1 ? 0 : 1]}`;

/** "no plan", or why the plan no longer counts. */
function lapsed(e: AccountEntitlements): string {
  if (!e.status) return `Account ${e.accountId} has no plan`;
  if (!e.plan) return `Account ${e.accountId}'s plan is no longer on the price list`;
  return `Account ${e.accountId}'s ${e.plan.name} plan is ${e.status.replace('_', ' ')}`;
}

const upgradeHint = (upgradeUrl: string) =>
  `Choose or change a plan (an agent can check out a plan change for you; see ${upgradeUrl}).`;

/** Allowed (undefined) when one more fits the plan; otherwise the refusal naming plan, limit and count. */
export function checkLimit(
  e: AccountEntitlements,
  limit: LimitName,
  used: number,
  upgradeUrl: string,
): Refusal | undefined {
  const base = {
    plan: e.plan?.slug ?? null,
    planStatus: e.status ?? null,
    limit,
    used,
    upgradeUrl,
  };
  if (!e.entitled || !e.plan)
    return {
      code: 'plan_limit_reached',
      detail: `${lapsed(e)}: its offices keep running but cannot add ${nouns[limit][1]} (${count(used, limit)} in use). ${upgradeHint(upgradeUrl)}`,
      extensions: { ...base, allowed: 0 },
    };
  const allowed = e.plan.limits[limit];
  if (used < allowed) return undefined;
  return {
    code: 'plan_limit_reached',
    detail: `The ${e.plan.name} plan of account ${e.accountId} allows ${count(allowed, limit)} and ${used} ${used === 1 ? 'is' : 'are'} in use. To add more, upgrade to a plan with a higher limit. ${upgradeHint(upgradeUrl)}`,
    extensions: { ...base, allowed },
  };
}

const featureNames: Record<GatedFeature, string> = {
  office_services: 'Per-office services',
  task_templates: 'Task templates and schedules',
  office_databases: 'Office databases',
  backups: 'Backups',
};

/** Where a feature can be had: the plans that include it, or the add-on that adds it. */
function whereToGet(prices: PriceList, feature: GatedFeature): string {
  const addOn = prices.addOns.find((a) => a.entitlements.includes(feature));
  if (addOn) return `the ${addOn.name} add-on`;
  const plans = prices.plans.filter((p) => p.entitlements.includes(feature)).map((p) => p.name);
  return plans.length ? `the ${plans.join(' and ')} plan${plans.length > 1 ? 's' : ''}` : 'no plan';
}

/** Allowed (undefined) when the account's plan or add-ons include the feature and the plan is in good standing. */
export function checkFeature(
  prices: PriceList,
  e: AccountEntitlements,
  feature: GatedFeature,
  upgradeUrl: string,
): Refusal | undefined {
  if (e.entitled && e.features.has(feature)) return undefined;
  const why = e.entitled
    ? `${featureNames[feature]} are not part of the ${e.plan?.name} plan of account ${e.accountId}`
    : `${lapsed(e)}, so ${featureNames[feature].toLowerCase()} cannot be added`;
  return {
    code: 'plan_feature_unavailable',
    detail: `${why}: they come with ${whereToGet(prices, feature)}. ${upgradeHint(upgradeUrl)}`,
    extensions: {
      plan: e.plan?.slug ?? null,
      planStatus: e.status ?? null,
      limit: feature,
      allowed: null,
      upgradeUrl,
    },
  };
}
