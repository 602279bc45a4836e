// ACP order webhook bodies: every event Colony renders validates against its ACP version's official
// WebhookEvent (openapi.agentic_checkout_webhook.yaml) and not against a version of the other shape;
// and the Merchant-Signature is the documented HMAC.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACP_VERSIONS } from '../../../api/acp/versions.ts';
import { acpOrderEvent } from '../../../api/acp/webhooks/order-event.ts';
import { merchantSignature } from '../../../api/acp/webhooks/signature.ts';
import type { OrderEventFacts } from '../../../api/commerce/order-webhooks/order-events.ts';
import { defaultConformanceDir, loadConformance } from '../../conformance/schema-validators.ts';

const schemas = loadConformance(defaultConformanceDir());

const facts = (patch: Partial<OrderEventFacts> = {}): OrderEventFacts => ({
  type: 'order_create',
  orderId: 'ord_1',
  checkoutSessionId: 'cs_1',
  permalinkUrl: 'https://colony.test/account',
  status: 'confirmed',
  lines: [
    { itemId: 'plan_pro_monthly', title: 'Pro', quantity: 1, unitAmount: 9900 },
    { itemId: 'addon_backups', title: 'Backups', quantity: 2, unitAmount: 500 },
  ],
  ...patch,
});

describe('ACP order events', () => {
  it.each(ACP_VERSIONS)('validate against the official WebhookEvent of %s', (version) => {
    for (const f of [facts(), facts({ type: 'order_update', status: 'canceled' })])
      expect(schemas.acp[version].webhookEvent(acpOrderEvent(f, version))).toEqual([]);
  });

  it('are shaped per version: refunds until 2026-01-30, the full Order from 2026-04-17', () => {
    const old = acpOrderEvent(facts(), '2026-01-30');
    const current = acpOrderEvent(facts(), '2026-04-17');
    expect(schemas.acp['2026-04-17'].webhookEvent(old)).not.toEqual([]);
    expect(schemas.acp['2026-01-30'].webhookEvent(current)).not.toEqual([]);
    expect(current).toMatchObject({
      data: {
        id: 'ord_1',
        totals: [
          { type: 'subtotal', amount: 10900 },
          { type: 'total', amount: 10900 },
        ],
      },
    });
    // A version no longer known gets the newest shape.
    expect(acpOrderEvent(facts(), '2024-01-01')).toEqual(current);
  });

  it('are signed with HMAC-SHA256 over "<t>.<raw body>"', () => {
    const body = JSON.stringify(acpOrderEvent(facts(), '2026-04-17'));
    const header = merchantSignature('s3cret', body, 1_700_000_000);
    const mac = createHmac('sha256', 's3cret').update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${mac}`);
    expect(header).toMatch(/^t=\d+,v1=[a-fA-F0-9]{64}$/);
  });
});
