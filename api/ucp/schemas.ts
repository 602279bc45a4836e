// zod schemas for UCP request bodies; fields the business owns (ids, titles, prices, totals) are ignored.
import { z } from 'zod';
import { jsonPath } from '../acp/schemas.ts';
import { buyerSchema } from '../commerce/buyer-input.ts';
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

export function parseUcpBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = jsonPath(issue?.path ?? []);
  throw new UcpError('invalid_request', `${path}: ${issue?.message ?? 'invalid value'}`, { path });
}

export function requested(body: z.infer<typeof checkoutBody>): RequestedItem[] {
  return body.line_items.map((l) => ({ itemId: l.item.id, quantity: l.quantity ?? 1 }));
}
