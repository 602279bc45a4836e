// The pure entitlement decisions: what a subscription entitles its account to under plans.yaml, and
// the refusals (naming plan, limit, count and how to raise it) when one more does not fit.
import { describe, expect, it } from 'vitest';
import {
  checkFeature,
  checkLimit,
  entitlementsOf,
} from '../../../api/commerce/entitlements/entitlement-rules.ts';
import type { SubscriptionRecord, SubscriptionStatus } from '../../../api/commerce/subscriptions-repo.ts';
import { loadPriceList } from '../../../api/domain/pricing/price-list.ts';

const prices = loadPriceList();
const url = 'https://colony.test/account';

function subscription(plan: string, status: SubscriptionStatus, addOns: string[] = []): SubscriptionRecord {
  return {
    id: 'sub_1',
    accountId: 'acct_1',
    checkoutSessionId: 'cs_1',
    status,
    plan,
    interval: 'month',
    items: [
      { itemId: `plan_${plan}_monthly`, quantity: 1, unitAmount: 100 },
      ...addOns.map((itemId) => ({ itemId, quantity: 1, unitAmount: 1500 })),
    ],
    trialEnd: null,
    processor: 'test',
    processorRef: 'ref',
    testMode: true,
    createdAt: 0,
    updatedAt: 0,
  };
}

describe('entitlementsOf', () => {
  it('reads the plan’s limits and features, and the add-ons’ features, from plans.yaml', () => {
    const starter = entitlementsOf(prices, 'acct_1', subscription('starter', 'active'));
    expect(starter.entitled).toBe(true);
    expect(starter.plan?.limits).toEqual({ offices: 1, agents: 5, integrations: 10 });
    expect([...starter.features]).toEqual([]);
    const team = entitlementsOf(prices, 'acct_1', subscription('team', 'trialing', ['addon_backups']));
    expect([...team.features].sort()).toEqual([
      'backups',
      'office_databases',
      'office_services',
      'task_templates',
    ]);
  });

  it('keeps entitlements while trialing, active or past due (the processor’s retry period), and not after', () => {
    const entitled = (status: SubscriptionStatus) =>
      entitlementsOf(prices, 'acct_1', subscription('pro', status)).entitled;
    expect(['trialing', 'active', 'past_due'].map((s) => entitled(s as SubscriptionStatus))).toEqual([
      true,
      true,
      true,
    ]);
    expect(['unpaid', 'paused', 'canceled'].map((s) => entitled(s as SubscriptionStatus))).toEqual([
      false,
      false,
      false,
    ]);
    expect(entitlementsOf(prices, 'acct_1', undefined).entitled).toBe(false);
    expect(entitlementsOf(prices, 'acct_1', subscription('retired-plan', 'active')).entitled).toBe(false);
  });
});

describe('checkLimit', () => {
  const starter = entitlementsOf(prices, 'acct_1', subscription('starter', 'active'));

  it('allows one more below the limit', () => {
    expect(checkLimit(starter, 'offices', 0, url)).toBeUndefined();
    expect(checkLimit(starter, 'agents', 4, url)).toBeUndefined();
  });

  it('refuses at the limit, naming the plan, the limit, the count and how to raise it', () => {
    const r = checkLimit(starter, 'integrations', 10, url);
    expect(r?.code).toBe('plan_limit_reached');
    expect(r?.extensions).toEqual({
      plan: 'starter',
      planStatus: 'active',
      limit: 'integrations',
      used: 10,
      allowed: 10,
      upgradeUrl: url,
    });
    expect(r?.detail).toContain(
      'The Starter plan of account acct_1 allows 10 integrations and 10 are in use',
    );
    expect(r?.detail).toContain(url);
  });

  it('refuses everything new once the plan lapsed, saying why, and for an account with no plan', () => {
    const ended = entitlementsOf(prices, 'acct_1', subscription('pro', 'canceled'));
    const r = checkLimit(ended, 'offices', 0, url);
    expect(r?.extensions).toMatchObject({ plan: 'pro', planStatus: 'canceled', allowed: 0, used: 0 });
    expect(r?.detail).toContain("Account acct_1's Pro plan is canceled");
    expect(r?.detail).toContain('keep running but cannot add offices');
    const none = checkLimit(entitlementsOf(prices, 'acct_2', undefined), 'agents', 0, url);
    expect(none?.extensions).toMatchObject({ plan: null, planStatus: null, allowed: 0 });
    expect(none?.detail).toContain('Account acct_2 has no plan');
  });
});

describe('checkFeature', () => {
  it('allows what the plan or an add-on includes', () => {
    const pro = entitlementsOf(prices, 'acct_1', subscription('pro', 'active', ['addon_backups']));
    expect(checkFeature(prices, pro, 'office_services', url)).toBeUndefined();
    expect(checkFeature(prices, pro, 'backups', url)).toBeUndefined();
  });

  it('refuses what the plan lacks, naming where it can be had', () => {
    const pro = entitlementsOf(prices, 'acct_1', subscription('pro', 'active'));
    const db = checkFeature(prices, pro, 'office_databases', url);
    expect(db?.code).toBe('plan_feature_unavailable');
    expect(db?.extensions).toMatchObject({ plan: 'pro', limit: 'office_databases', allowed: null });
    expect(db?.detail).toContain('Office databases are not part of the Pro plan');
    expect(db?.detail).toContain('the Team plan');
    const backups = checkFeature(prices, pro, 'backups', url);
    expect(backups?.detail).toContain('the Backups add-on');
    const starter = entitlementsOf(prices, 'acct_1', subscription('starter', 'active'));
    expect(checkFeature(prices, starter, 'office_services', url)?.detail).toContain('the Pro and Team plans');
  });

  it('refuses even included features once the plan lapsed', () => {
    const unpaid = entitlementsOf(prices, 'acct_1', subscription('team', 'unpaid'));
    expect(checkFeature(prices, unpaid, 'office_services', url)?.detail).toContain('Team plan is unpaid');
  });
});
