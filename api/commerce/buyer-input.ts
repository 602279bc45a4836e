// The buyer fields both protocols accept (snake_case on the wire) and their neutral form.
import { z } from 'zod';
import type { Buyer } from './checkout-session.ts';

export const buyerSchema = z.looseObject({
  email: z.email().max(320).optional(),
  first_name: z.string().trim().min(1).max(200).optional(),
  last_name: z.string().trim().min(1).max(200).optional(),
  full_name: z.string().trim().min(1).max(400).optional(),
  phone_number: z.string().trim().min(1).max(40).optional(),
});

export function buyerFrom(b: z.infer<typeof buyerSchema> | undefined): Buyer | undefined {
  if (b === undefined) return undefined;
  const buyer: Buyer = {};
  if (b.email !== undefined) buyer.email = b.email;
  if (b.first_name !== undefined) buyer.firstName = b.first_name;
  if (b.last_name !== undefined) buyer.lastName = b.last_name;
  if (b.full_name !== undefined) buyer.fullName = b.full_name;
  if (b.phone_number !== undefined) buyer.phoneNumber = b.phone_number;
  return buyer;
}

/** The wire form of a recorded buyer (the fields every protocol version names the same way). */
export interface WireBuyer {
  first_name?: string;
  last_name?: string;
  email?: string;
  phone_number?: string;
}

export function buyerWire(b: Buyer): WireBuyer {
  const out: WireBuyer = {};
  if (b.firstName !== undefined) out.first_name = b.firstName;
  if (b.lastName !== undefined) out.last_name = b.lastName;
  if (b.email !== undefined) out.email = b.email;
  if (b.phoneNumber !== undefined) out.phone_number = b.phoneNumber;
  return out;
}
