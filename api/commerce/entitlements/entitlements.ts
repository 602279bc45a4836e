// What a plan lets an office or account do, read from the billing tables and the price list; every
// enforced surface asks here and throws the refusal as problem+json. Operator-managed offices (no
// billing row) are outside plans: every check passes for them.
import type { Storage } from '../../app-storage.ts';
import type { GatedFeature, PriceList } from '../../domain/pricing/price-list.ts';
import { ProblemError } from '../../shared/problem.ts';
import {
  type AccountEntitlements,
  checkFeature,
  checkLimit,
  entitlementsOf,
  type LimitName,
  type Refusal,
} from './entitlement-rules.ts';

const refused = (r: Refusal) => new ProblemError(r.code, r.detail, { extensions: r.extensions });

export class Entitlements {
  private readonly storage: Pick<Storage, 'officeBilling' | 'subscriptions'>;
  private readonly prices: PriceList;
  /** Where an owner raises a limit: their account page, which shows the plan and how to change it. */
  readonly upgradeUrl: string;

  constructor(deps: {
    storage: Pick<Storage, 'officeBilling' | 'subscriptions'>;
    prices: PriceList;
    baseUrl: string;
  }) {
    this.storage = deps.storage;
    this.prices = deps.prices;
    this.upgradeUrl = `${deps.baseUrl}/account`;
  }

  get billing() {
    return this.storage.officeBilling;
  }

  async ofAccount(accountId: string): Promise<AccountEntitlements> {
    return entitlementsOf(this.prices, accountId, await this.storage.subscriptions.ofAccount(accountId));
  }

  /** The plan an office counts against, or undefined for an operator-managed office. */
  async ofOffice(officeId: string): Promise<AccountEntitlements | undefined> {
    const accountId = await this.storage.officeBilling.accountOf(officeId);
    return accountId === undefined ? undefined : this.ofAccount(accountId);
  }

  /** Throws plan_limit_reached unless the account may bill one more office. */
  async requireOfficeRoom(accountId: string): Promise<void> {
    const [e, offices] = await Promise.all([
      this.ofAccount(accountId),
      this.storage.officeBilling.officesOf(accountId),
    ]);
    const r = checkLimit(e, 'offices', offices.length, this.upgradeUrl);
    if (r) throw refused(r);
  }

  /**
   * Throws plan_limit_reached unless the office's account may add one more `limit`; `used` counts
   * what the account already has across the offices it pays for. Operator-managed: never counted.
   */
  async requireRoom(
    officeId: string,
    limit: Exclude<LimitName, 'offices'>,
    used: (billedOffices: string[]) => Promise<number>,
  ): Promise<void> {
    const e = await this.ofOffice(officeId);
    if (!e) return;
    const r = checkLimit(
      e,
      limit,
      await used(await this.storage.officeBilling.officesOf(e.accountId)),
      this.upgradeUrl,
    );
    if (r) throw refused(r);
  }

  /** Throws plan_feature_unavailable unless the office's plan (or add-on) includes the feature. */
  async requireFeature(officeId: string, feature: GatedFeature): Promise<void> {
    const r = await this.featureRefusal(officeId, feature);
    if (r) throw refused(r);
  }

  /** Whether the office may use the feature: operator-managed offices always may. */
  async allows(officeId: string, feature: GatedFeature): Promise<boolean> {
    return (await this.featureRefusal(officeId, feature)) === undefined;
  }

  private async featureRefusal(officeId: string, feature: GatedFeature): Promise<Refusal | undefined> {
    const e = await this.ofOffice(officeId);
    return e ? checkFeature(this.prices, e, feature, this.upgradeUrl) : undefined;
  }
}
