// The presenters' declared wire shapes: every ACP snapshot and UCP version, in every state, parses with the
// strict zod schema its presenter is typed by, so the types never drift from the bytes.
import { describe, expect, it } from 'vitest';
import { presentAcpSession } from '../../../api/acp/present-session.ts';
import { acpCheckoutSessionSchema } from '../../../api/acp/session-schema.ts';
import { ACP_VERSIONS } from '../../../api/acp/versions.ts';
import { priceCart } from '../../../api/commerce/checkout-pricing.ts';
import {
  type CheckoutSession,
  checkoutStatuses,
  newSession,
} from '../../../api/commerce/checkout-session.ts';
import { buildCatalog } from '../../../api/domain/pricing/catalog.ts';
import { loadPriceList } from '../../../api/domain/pricing/price-list.ts';
import { ucpCheckoutSchema, ucpErrorResponseSchema } from '../../../api/ucp/checkout-schema.ts';
import { UcpError, ucpErrorBody } from '../../../api/ucp/errors.ts';
import { CapabilitiesIncompatible } from '../../../api/ucp/negotiate.ts';
import { presentUcpSession } from '../../../api/ucp/present-session.ts';
import { UCP_VERSIONS } from '../../../api/ucp/versions.ts';

const catalog = buildCatalog(loadPriceList());
const T0 = Date.parse('2026-11-23T10:00:00Z');
const ctx = {
  continueUrl: 'https://colony.test/checkout/cs_1',
  termsUrl: 'https://colony.test/legal/terms',
  privacyUrl: 'https://colony.test/legal/privacy',
  accountUrl: 'https://colony.test/account',
  now: T0,
};

function session(items: string[], extra: Partial<CheckoutSession> = {}): CheckoutSession {
  const priced = priceCart(
    items.map((itemId) => ({ itemId, quantity: 1 })),
    catalog,
    { trialDays: 14, priceListVersion: 'v' },
  );
  if (!('cart' in priced)) throw new Error('unknown items');
  return {
    ...newSession({ id: 'cs_1', protocol: 'acp', cart: priced.cart, buyer: null, now: T0 }),
    ...extra,
  };
}

const buyer = { email: 'a@b.co', firstName: 'A', lastName: 'B', fullName: 'A B', phoneNumber: '1' };
const order = { subscriptionId: 'sub_1', accountId: 'acc_1', trialEnd: T0 };
const sessions = [
  session(['plan_pro_monthly', 'plan_team_monthly']),
  session(['addon_backups']),
  ...checkoutStatuses.map((status) => session(['plan_pro_monthly'], { status, buyer })),
  session(['plan_team_annual', 'addon_backups'], { status: 'completed', order, buyer: { email: 'x@y.co' } }),
];

describe('presentAcpSession', () => {
  it.each(ACP_VERSIONS)('returns bodies the %s session schema accepts, in every state', (version) => {
    for (const s of sessions) {
      for (const sandbox of [false, true]) {
        const parsed = acpCheckoutSessionSchema.safeParse(presentAcpSession(s, version, { ...ctx, sandbox }));
        expect(parsed.error?.issues ?? [], `${s.status}`).toEqual([]);
      }
    }
  });
});

describe('presentUcpSession', () => {
  it.each(UCP_VERSIONS)('returns bodies the %s checkout schema accepts, in every state', (version) => {
    const n = { version, checkoutVersion: version };
    for (const s of sessions) {
      const body = presentUcpSession(s, n, {
        ...ctx,
        handlerSpecUrl: 'https://colony.test/docs/commerce.md',
      });
      expect(ucpCheckoutSchema.safeParse(body).error?.issues ?? [], `${s.status}`).toEqual([]);
    }
  });
});

describe('ucpErrorBody', () => {
  it('answers catalogue errors and a failed negotiation in the error_response schema', () => {
    const errors = [
      new UcpError('item_unavailable', 'No such item.', { path: '$.line_items[0].item.id' }),
      new CapabilitiesIncompatible('2026-01-23', 'No checkout version in common.'),
    ];
    for (const err of errors) expect(ucpErrorResponseSchema.safeParse(ucpErrorBody(err)).success).toBe(true);
    expect(ucpErrorBody(errors[1] as UcpError).ucp.version).toBe('2026-01-23');
  });
});
