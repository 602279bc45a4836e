import { describe, expect, it } from 'vitest';
import { AccountUsage } from '../../../api/commerce/usage/account-usage.ts';
import type { LedgerSource } from '../../../api/commerce/usage/office-ledgers.ts';
import { loadPriceList } from '../../../api/domain/pricing/price-list.ts';
import { emptyLedger, type UsageLedger } from '../../../cluster/usage-ledger.ts';

const NOW = Date.UTC(2026, 10, 11);
const ledger = (credits: number): UsageLedger => ({
  ...emptyLedger(),
  periods: { '2026-11': credits * 3_600_000 },
});

function setup(o: { status?: string; failing?: boolean } = {}) {
  let reads = 0;
  let now = NOW;
  const ledgers: LedgerSource = {
    offices: async () => new Map(),
    ledgerIn: async () => emptyLedger(),
    async ledgerOf() {
      reads++;
      if (o.failing) throw new Error('connect ECONNREFUSED');
      return ledger(120);
    },
  };
  const storage = {
    subscriptions: { ofAccount: async () => ({ plan: 'pro', status: o.status ?? 'active' }) },
    officeBilling: { officesOf: async () => ['acme'] },
  } as unknown as ConstructorParameters<typeof AccountUsage>[0]['storage'];
  const usage = new AccountUsage({ storage, prices: loadPriceList(), ledgers, now: () => now });
  return { usage, reads: () => reads, advance: (ms: number) => (now += ms) };
}

describe('AccountUsage', () => {
  it("sums the account's offices against its plan", async () => {
    const u = await setup().usage.forAccount('acct');
    expect(u).toMatchObject({
      plan: 'pro',
      allowanceCredits: 5000,
      usedCredits: 120,
      offices: [{ officeId: 'acme' }],
    });
  });

  it('serves a summary again for a few seconds instead of reading the cluster at every /me', async () => {
    const s = setup();
    await s.usage.forAccount('acct');
    await s.usage.forAccount('acct');
    expect(s.reads()).toBe(1);
    s.advance(60_000);
    await s.usage.forAccount('acct');
    expect(s.reads()).toBe(2);
  });

  it('leaves usage out, rather than failing, when the ledgers cannot be read', async () => {
    expect(await setup({ failing: true }).usage.forAccount('acct')).toBeNull();
  });

  it('includes nothing for a canceled subscription', async () => {
    const u = await setup({ status: 'canceled' }).usage.forAccount('acct');
    expect(u).toMatchObject({
      plan: null,
      allowanceCredits: 0,
      usedCredits: 120,
      projectedOverageCents: null,
    });
  });
});
