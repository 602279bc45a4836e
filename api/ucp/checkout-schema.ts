// zod: the UCP checkout response and error_response as Colony sends them, narrowed from the official
// shopping/checkout.json and types/*.json of each version; 2026-01-23 has no `ucp.status` and no instruments.
import { z } from 'zod';
import {
  CHECKOUT_CAPABILITY,
  HOSTED_BILLING_HANDLER,
  HOSTED_BILLING_HANDLER_ID,
  UCP_VERSIONS,
} from './versions.ts';

const version = z.enum(UCP_VERSIONS);
/** Integer minor units (cents). */
const amount = z.number().int();
const jsonPath = z.string().startsWith('$');

export const ucpPaymentHandlerSchema = z.strictObject({
  id: z.literal(HOSTED_BILLING_HANDLER_ID),
  version,
  spec: z.url(),
  config: z.strictObject({
    instrument: z.literal('hosted_checkout'),
    delegated_credentials: z.literal(false),
  }),
  available_instruments: z.array(z.strictObject({ type: z.literal('hosted_checkout') })).optional(),
});

export const ucpResponseBlockSchema = z.strictObject({
  version,
  status: z.literal('success').optional(),
  capabilities: z.strictObject({ [CHECKOUT_CAPABILITY]: z.array(z.strictObject({ version })) }),
  payment_handlers: z.strictObject({ [HOSTED_BILLING_HANDLER]: z.array(ucpPaymentHandlerSchema) }),
});

export const ucpTotalSchema = z.strictObject({
  type: z.enum(['subtotal', 'total']),
  display_text: z.string(),
  amount,
});

export const ucpLineItemSchema = z.strictObject({
  id: z.string(),
  item: z.strictObject({ id: z.string(), title: z.string(), price: amount }),
  quantity: z.number().int().min(1),
  totals: z.array(ucpTotalSchema),
});

export const ucpMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('error'),
    code: z.string(),
    content: z.string(),
    severity: z.enum(['recoverable', 'requires_buyer_input', 'unrecoverable']),
    path: jsonPath.optional(),
  }),
  z.strictObject({ type: z.literal('info'), code: z.string().optional(), content: z.string() }),
]);
export type UcpMessage = z.infer<typeof ucpMessageSchema>;
export type UcpErrorMessage = Extract<UcpMessage, { type: 'error' }>;

export const ucpBuyerSchema = z.strictObject({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  email: z.string().optional(),
  phone_number: z.string().optional(),
});

export const ucpCheckoutSchema = z.strictObject({
  ucp: ucpResponseBlockSchema,
  id: z.string(),
  status: z.enum(['incomplete', 'requires_escalation', 'ready_for_complete', 'completed', 'canceled']),
  currency: z.literal('USD'),
  line_items: z.array(ucpLineItemSchema),
  buyer: ucpBuyerSchema.optional(),
  totals: z.array(ucpTotalSchema),
  messages: z.array(ucpMessageSchema),
  links: z.array(
    z.strictObject({ type: z.enum(['terms_of_service', 'privacy_policy']), url: z.url(), title: z.string() }),
  ),
  expires_at: z.iso.datetime(),
  continue_url: z.url(),
  order: z.strictObject({ id: z.string(), permalink_url: z.url() }).optional(),
});

/** Every UCP error: the envelope in status error with one error message. */
export const ucpErrorResponseSchema = z.strictObject({
  ucp: z.strictObject({ version, status: z.literal('error') }),
  messages: z.array(ucpMessageSchema.options[0]),
  continue_url: z.url().optional(),
});

export type UcpPaymentHandler = z.infer<typeof ucpPaymentHandlerSchema>;
export type UcpResponseBlock = z.infer<typeof ucpResponseBlockSchema>;
export type UcpLineItem = z.infer<typeof ucpLineItemSchema>;
export type UcpCheckout = z.infer<typeof ucpCheckoutSchema>;
export type UcpErrorResponse = z.infer<typeof ucpErrorResponseSchema>;
