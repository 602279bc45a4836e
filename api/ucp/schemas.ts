// zod schemas for UCP request bodies; fields the business owns (ids, titles, prices, totals) are ignored.
import { z } from 'zod';
import { buyerFrom, buyerSchema } from '../commerce/buyer-input.ts';
import type { CheckoutParsers } from '../commerce/checkout-adapter.ts';
import { parseCheckoutBody } from '../commerce/checkout-body.ts';
import type { RequestedItem } from '../commerce/checkout-pricing.ts';
import { UcpError } from './errors.ts';

const lineItems = z
  .array(
    z.looseObject({
      item: z.looseObject({ id: z.string().trim().min(1).max(200) }),
      quantity: z.number().int().min(1).max(1000).optional(),
    }),
  )
  .min(1)
  .max(20);

/** Create and update (PUT) carry the whole cart; update replaces the buyer too (absent means none). */
export const checkoutBody = z.looseObject({ line_items: lineItems, buyer: buyerSchema.optional() });
export const completeBody = z.looseObject({});

const invalid = (message: string, path: string) => new UcpError('invalid_request', message, { path });

const parseUcpBody = <S extends z.ZodType>(schema: S, body: unknown): z.infer<S> =>
  parseCheckoutBody(schema, body, invalid);

export function requested(body: z.infer<typeof checkoutBody>): RequestedItem[] {
  return body.line_items.map((l) => ({ itemId: l.item.id, quantity: l.quantity ?? 1 }));
}

/** The whole cart, and the buyer with it: an update without a buyer clears the recorded one. */
function cartOf(body: unknown) {
  const parsed = parseUcpBody(checkoutBody, body);
  return {
    items: { items: requested(parsed), field: 'line_items' as const },
    buyer: buyerFrom(parsed.buyer),
  };
}

export const ucpParsers: CheckoutParsers = {
  create: cartOf,
  update(body) {
    const { items, buyer } = cartOf(body);
    return { items, buyer: buyer ?? null };
  },
  // Payment instruments a platform may send are ignored and never stored: the owner pays at continue_url.
  complete(body) {
    parseUcpBody(completeBody, body);
    return undefined;
  },
};
