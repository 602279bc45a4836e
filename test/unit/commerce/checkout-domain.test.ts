// The pure checkout domain: pricing from the catalog, the state machine, version and header parsing,
// negotiation and the status vocabularies of each protocol.
import { describe, expect, it } from 'vitest';
import { presentAcpSession } from '../../../api/acp/present-session.ts';
import { parseAcpVersion, shapeOf } from '../../../api/acp/versions.ts';
import { priceCart } from '../../../api/commerce/checkout-pricing.ts';
import {
  type CheckoutSession,
  cancelSession,
  completeSession,
  expireIfDue,
  finishSession,
  newSession,
  SESSION_TTL_MS,
  updateSession,
} from '../../../api/commerce/checkout-session.ts';
import { sessionNotes } from '../../../api/commerce/checkout-terms.ts';
import { buildCatalog } from '../../../api/domain/pricing/catalog.ts';
import { loadPriceList } from '../../../api/domain/pricing/price-list.ts';
import { UcpError } from '../../../api/ucp/errors.ts';
import { CapabilitiesIncompatible, negotiate } from '../../../api/ucp/negotiate.ts';
import { presentUcpSession } from '../../../api/ucp/present-session.ts';
import { parseUcpAgent } from '../../../api/ucp/ucp-agent.ts';

const catalog = buildCatalog(loadPriceList());
const terms = { trialDays: 14, priceListVersion: '2026-11-01' };
const T0 = Date.parse('2026-11-23T10:00:00Z');

function cart(...items: [string, number?][]) {
  const priced = priceCart(
    items.map(([itemId, quantity = 1]) => ({ itemId, quantity })),
    catalog,
    terms,
  );
  if (!('cart' in priced)) throw new Error('unknown items');
  return priced.cart;
}

const session = (c = cart(['plan_pro_monthly'])): CheckoutSession =>
  newSession({ id: 'cs_1', protocol: 'acp', cart: c, buyer: null, now: T0 });

describe('priceCart', () => {
  it('prices lines from the catalog in integer cents, plans first, repeated ids merged', () => {
    const c = cart(['addon_backups'], ['plan_pro_monthly']);
    expect(c.lines.map((l) => [l.id, l.unitAmount, l.amount])).toEqual([
      ['li_plan_pro_monthly', 9900, 9900],
      ['li_addon_backups', 1500, 1500],
    ]);
    expect([c.subtotal, c.total, c.interval, c.problems]).toEqual([11400, 11400, 'month', []]);
    expect(cart(['plan_pro_monthly'], ['plan_pro_monthly']).lines[0]?.quantity).toBe(2);
  });

  it('names every unknown item with its position', () => {
    expect(
      priceCart(
        [
          { itemId: 'plan_pro_monthly', quantity: 1 },
          { itemId: 'x', quantity: 1 },
          { itemId: 'y', quantity: 1 },
        ],
        catalog,
        terms,
      ),
    ).toEqual({
      unknownItems: [
        { index: 1, itemId: 'x' },
        { index: 2, itemId: 'y' },
      ],
    });
  });

  it.each([
    ['no plan', [['addon_backups']], { code: 'missing', itemId: null }],
    [
      'two plans',
      [['plan_pro_monthly'], ['plan_team_annual']],
      { code: 'invalid', itemId: 'plan_team_annual', field: 'item' },
    ],
    [
      'a plan twice',
      [['plan_pro_monthly', 2]],
      { code: 'invalid', itemId: 'plan_pro_monthly', field: 'quantity' },
    ],
    [
      'a monthly add-on on an annual plan',
      [['plan_pro_annual'], ['addon_backups']],
      { code: 'invalid', itemId: 'addon_backups' },
    ],
  ] as const)('reports %s as a problem', (_name, items, problem) => {
    expect(cart(...(items as unknown as [string, number?][])).problems[0]).toMatchObject(problem);
  });
});

describe('the session state machine', () => {
  it('starts ready for payment, or not ready when the cart has problems, and expires six hours later', () => {
    expect(session().status).toBe('ready_for_payment');
    expect(session(cart(['addon_backups'])).status).toBe('not_ready_for_payment');
    expect(session().expiresAt - T0).toBe(SESSION_TTL_MS);
  });

  it('hands off on complete, keeps the hand-off across updates, and refuses a cart that cannot be bought', () => {
    const done = completeSession(session(), { email: 'a@b.co' }, T0 + 1);
    if (!('session' in done)) throw new Error('refused');
    expect(done.session).toMatchObject({
      status: 'requires_escalation',
      escalatedAt: T0 + 1,
      buyer: { email: 'a@b.co' },
      revision: 2,
    });
    const updated = updateSession(done.session, { cart: cart(['plan_team_monthly']) }, T0 + 2);
    expect('session' in updated && updated.session.status).toBe('requires_escalation');
    const broken = updateSession(done.session, { cart: cart(['addon_backups']) }, T0 + 2);
    expect('session' in broken && broken.session.status).toBe('not_ready_for_payment');
    expect(completeSession(session(cart(['addon_backups'])), undefined, T0)).toEqual({
      refused: 'not_ready',
    });
  });

  it.each(['completed', 'canceled', 'expired'] as const)('never leaves %s', (status) => {
    const s = { ...session(), status };
    for (const result of [
      updateSession(s, {}, T0),
      completeSession(s, undefined, T0),
      cancelSession(s, T0),
      finishSession(s, { subscriptionId: 'sub', accountId: 'acct', trialEnd: null }, T0),
    ]) {
      expect(result).toEqual({ refused: 'final', status });
    }
    expect(expireIfDue(s, T0 + 2 * SESSION_TTL_MS)).toBe(s);
  });

  it('expires exactly at expires_at', () => {
    const s = session();
    expect(expireIfDue(s, s.expiresAt - 1)).toBe(s);
    expect(expireIfDue(s, s.expiresAt).status).toBe('expired');
  });

  it('completes only through the owner finishing at continue_url', () => {
    const finished = finishSession(
      session(),
      { subscriptionId: 'sub_1', accountId: 'acct_1', trialEnd: T0 + 14 * 86_400_000 },
      T0,
    );
    expect('session' in finished && finished.session).toMatchObject({
      status: 'completed',
      order: { subscriptionId: 'sub_1' },
    });
  });
});

describe('messages', () => {
  it('state the trial, the first charge date, tax and the hand-off', () => {
    const texts = sessionNotes(session(), 'http://x/checkout/cs_1', T0)
      .map((n) => n.text)
      .join(' ');
    expect(texts).toContain('14 days');
    expect(texts).toContain('2026-12-07');
    expect(texts).toContain('$99.00');
    expect(texts).toContain('Tax is assessed by the payment processor');
    expect(texts).toContain('http://x/checkout/cs_1');
  });
});

describe('ACP versions', () => {
  it.each([
    [undefined, '2026-04-17'],
    ['2025-09-29', '2025-09-29'],
    [' 2026-01-30 ', '2026-01-30'],
    ['2026-04-18', { unsupported: '2026-04-18' }],
    ['latest', { unsupported: 'latest' }],
  ])('reads API-Version %j as %j', (header, expected) => {
    expect(parseAcpVersion(header)).toEqual(expected);
  });

  it.each([
    ['requires_escalation', '2025-09-29', 'in_progress'],
    ['requires_escalation', '2026-01-16', 'in_progress'],
    ['requires_escalation', '2026-01-30', 'requires_escalation'],
    ['expired', '2025-12-12', 'canceled'],
    ['expired', '2026-04-17', 'expired'],
    ['ready_for_payment', '2025-09-29', 'ready_for_payment'],
  ] as const)('shows %s in %s as %s', (status, version, shown) => {
    const ctx = { continueUrl: 'u', termsUrl: 't', privacyUrl: 'p', accountUrl: 'a', now: T0 };
    expect(presentAcpSession({ ...session(), status }, version, ctx).status).toBe(shown);
    expect(shapeOf(version)).toBe(version >= '2026-01-30' ? 'v3' : version === '2025-09-29' ? 'v1' : 'v2');
  });
});

describe('UCP', () => {
  it.each([
    ['not_ready_for_payment', 'incomplete'],
    ['ready_for_payment', 'ready_for_complete'],
    ['requires_escalation', 'requires_escalation'],
    ['completed', 'completed'],
    ['canceled', 'canceled'],
    ['expired', 'canceled'],
  ] as const)('shows %s as %s', (status, shown) => {
    const ctx = {
      continueUrl: 'u',
      termsUrl: 't',
      privacyUrl: 'p',
      accountUrl: 'a',
      handlerSpecUrl: 'h',
      now: T0,
    };
    const n = { version: '2026-04-08', checkoutVersion: '2026-04-08' } as const;
    expect(presentUcpSession({ ...session(), status, id: 'ucs_1' }, n, ctx).status).toBe(shown);
  });

  it.each([
    ['profile="https://agent.example/p"', 'https://agent.example/p'],
    ['profile="https://agent.example/p";v=1, other=?1', 'https://agent.example/p'],
    ['other=1, profile="https://agent.example/p"', 'https://agent.example/p'],
  ])('parses UCP-Agent %s as an RFC 8941 dictionary', (header, profile) => {
    expect(parseUcpAgent(header, false).profile.href).toBe(profile);
  });

  it.each([
    [undefined],
    [''],
    ['profile'],
    ['profile=https://x'],
    ['profile="not a url"'],
    ['profile="ftp://agent.example/p"'],
    ['profile="http://agent.example/p"'],
    ['profile="https://user:pw@agent.example/p"'],
    ['profile=("https://a" "https://b")'],
  ])('refuses UCP-Agent %j', (header) => {
    expect(() => parseUcpAgent(header, false)).toThrow(UcpError);
  });

  it('negotiates the protocol version from the profile and the checkout version from both', () => {
    const profile = (version: string, checkout?: string[]) => ({
      ucp: {
        version,
        ...(checkout
          ? { capabilities: { 'dev.ucp.shopping.checkout': checkout.map((v) => ({ version: v })) } }
          : {}),
      },
    });
    expect(negotiate(profile('2026-04-08'))).toEqual({
      version: '2026-04-08',
      checkoutVersion: '2026-04-08',
    });
    expect(negotiate(profile('2026-04-08', ['2026-01-23', '2026-04-08', '2027-01-01']))).toEqual({
      version: '2026-04-08',
      checkoutVersion: '2026-04-08',
    });
    expect(negotiate(profile('2026-01-23', ['2026-01-23']))).toEqual({
      version: '2026-01-23',
      checkoutVersion: '2026-01-23',
    });
    expect(() => negotiate(profile('2026-07-01'))).toThrow(/not supported/);
    expect(() => negotiate(profile('2026-04-08', ['2025-01-01']))).toThrow(CapabilitiesIncompatible);
  });
});
