// zod schemas for ACP request bodies, accepting every snapshot's form; unknown and server-owned fields are ignored.
import { z } from 'zod';
import { buyerFrom, buyerSchema } from '../commerce/buyer-input.ts';
import type { CheckoutParsers } from '../commerce/checkout-adapter.ts';
import { parseCheckoutBody } from '../commerce/checkout-body.ts';
import type { ItemsRequest } from '../commerce/checkout-refusals.ts';
import { AcpError } from './errors.ts';

const itemId = z.string().trim().min(1).max(200);
const quantity = z.number().int().min(1).max(1000);

// One entry of `line_items`: `{item: {id}, quantity?}` (current), `{id, quantity?}` (2026-04-17). An entry
// echoed from a response carries both a line id and `item.id`; the item wins.
const lineItem = z
  .looseObject({
    item: z.looseObject({ id: itemId }).optional(),
    id: itemId.optional(),
    quantity: quantity.optional(),
  })
  .refine((l) => l.item !== undefined || l.id !== undefined, {
    message: 'needs item.id (or id)',
    path: ['item', 'id'],
  });

// One entry of the 2025-09-29 `items`.
const olderItem = z.looseObject({ id: itemId, quantity: quantity.optional() });

const MAX_ITEMS = 20;

const cartFields = {
  line_items: z.array(lineItem).min(1).max(MAX_ITEMS).optional(),
  items: z.array(olderItem).min(1).max(MAX_ITEMS).optional(),
  buyer: buyerSchema.optional(),
};

export const createBody = z.looseObject(cartFields);
export const updateBody = z.looseObject(cartFields);
// payment_data may be sent by 2025-09-29 clients, whose schema requires it: it is ignored and never stored.
export const completeBody = z.looseObject({ buyer: buyerSchema.optional() });

const invalid = (message: string, param: string) => new AcpError('invalid_request', message, { param });

/** Parses a body or throws the ACP error naming the first bad field. */
const parseBody = <S extends z.ZodType>(schema: S, body: unknown): z.infer<S> =>
  parseCheckoutBody(schema, body, invalid);

type CartFields = z.infer<typeof createBody>;

/** The items asked for, whichever form was used; undefined when the body names none. */
export function requestedItems(body: CartFields): ItemsRequest | undefined {
  if (body.line_items && body.items) {
    throw new AcpError('invalid_request', 'Send either line_items or the older items, not both.', {
      param: '$.items',
    });
  }
  if (body.line_items) {
    return {
      field: 'line_items',
      items: body.line_items.map((l) => ({ itemId: l.item?.id ?? l.id ?? '', quantity: l.quantity ?? 1 })),
    };
  }
  if (body.items)
    return { field: 'items', items: body.items.map((i) => ({ itemId: i.id, quantity: i.quantity ?? 1 })) };
  return undefined;
}

/** ACP bodies as the checkout surface reads them; create needs items in one of the two forms. */
export const acpParsers: CheckoutParsers = {
  create(body) {
    const parsed = parseBody(createBody, body);
    const items = requestedItems(parsed);
    if (!items) throw invalid('line_items is required.', '$.line_items');
    return { items, buyer: buyerFrom(parsed.buyer) };
  },
  update(body) {
    const parsed = parseBody(updateBody, body);
    return { items: requestedItems(parsed), buyer: buyerFrom(parsed.buyer) };
  },
  complete: (body) => buyerFrom(parseBody(completeBody, body).buyer),
};
