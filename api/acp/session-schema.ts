// zod: the ACP checkout session and error object as Colony sends them, narrowed from the official
// schema.agentic_checkout.json of each snapshot; fields one snapshot family lacks are optional here.
import { z } from 'zod';
import { checkoutStatuses } from '../commerce/checkout-session.ts';

/** Integer minor units (cents). */
const amount = z.number().int();
const jsonPath = z.string().startsWith('$');

export const acpTotalSchema = z.strictObject({
  type: z.enum(['items_base_amount', 'subtotal', 'total']),
  display_text: z.string(),
  amount,
  /** 2025-12-12 on, on the total row: where tax is assessed. */
  description: z.string().optional(),
});

/** v3 (2026-01-30 on) nests name and price in the item and totals per line; v1 and v2 carry flat amounts. */
export const acpLineItemSchema = z.strictObject({
  id: z.string(),
  item: z.strictObject({
    id: z.string(),
    quantity: z.number().int().min(1).optional(),
    name: z.string().optional(),
    unit_amount: amount.optional(),
  }),
  quantity: z.number().int().min(1).optional(),
  base_amount: amount.optional(),
  discount: amount.optional(),
  subtotal: amount.optional(),
  tax: amount.optional(),
  total: amount.optional(),
  name: z.string().optional(),
  description: z.string().optional(),
  unit_amount: amount.optional(),
  totals: z.array(acpTotalSchema).optional(),
});

const resolution = z.enum(['recoverable', 'requires_buyer_input']);

export const acpMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('error'),
    code: z.enum(['missing', 'invalid']),
    content_type: z.literal('plain'),
    content: z.string(),
    param: jsonPath.optional(),
    severity: z.literal('high').optional(),
    resolution: resolution.optional(),
  }),
  z.strictObject({
    type: z.literal('info'),
    content_type: z.enum(['plain', 'markdown']),
    content: z.string(),
    param: jsonPath.optional(),
    resolution: resolution.optional(),
  }),
]);

export const acpLinkSchema = z.strictObject({
  type: z.enum(['terms_of_use', 'privacy_policy']),
  url: z.url(),
  title: z.string().optional(),
});

export const acpBuyerSchema = z.strictObject({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  email: z.string(),
  phone_number: z.string().optional(),
  full_name: z.string().optional(),
});

/** The session object; before 2026-01-30 the hand-off reads `in_progress` and there is no `expired`. */
export const acpCheckoutSessionSchema = z.strictObject({
  id: z.string(),
  protocol: z.strictObject({ version: z.string() }).optional(),
  capabilities: z.strictObject({ payment: z.strictObject({ handlers: z.array(z.never()) }) }).optional(),
  status: z.enum([...checkoutStatuses, 'in_progress']),
  currency: z.literal('usd'),
  buyer: acpBuyerSchema.optional(),
  line_items: z.array(acpLineItemSchema),
  fulfillment_options: z.array(z.never()),
  totals: z.array(acpTotalSchema),
  messages: z.array(acpMessageSchema),
  links: z.array(acpLinkSchema),
  created_at: z.iso.datetime().optional(),
  updated_at: z.iso.datetime().optional(),
  expires_at: z.iso.datetime().optional(),
  continue_url: z.url().optional(),
  order: z
    .strictObject({ id: z.string(), checkout_session_id: z.string(), permalink_url: z.url() })
    .optional(),
});

export type AcpTotal = z.infer<typeof acpTotalSchema>;
export type AcpLineItem = z.infer<typeof acpLineItemSchema>;
export type AcpMessage = z.infer<typeof acpMessageSchema>;
export type AcpLink = z.infer<typeof acpLinkSchema>;
export type AcpBuyer = z.infer<typeof acpBuyerSchema>;
export type AcpCheckoutSession = z.infer<typeof acpCheckoutSessionSchema>;
