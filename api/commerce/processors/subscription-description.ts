// What the account's plan page reads from the payment processor about one subscription: its standing,
// the next charge, the payment method and the receipts and invoices, in Colony's own terms.
import type { SubscriptionRecord, SubscriptionStatus } from '../subscriptions-repo.ts';

export interface NextCharge {
  /** Integer cents, tax included where the processor assessed it. */
  amount: number;
  currency: string;
  at: number;
}

export interface PaymentMethodSummary {
  /** A card's brand (`visa`), or the method's kind when it is not a card (`sepa_debit`). */
  brand: string;
  last4: string | null;
}

export interface InvoiceSummary {
  id: string;
  /** The processor's printed number, when it has given one. */
  number: string | null;
  /** The processor's word for it: draft, open, paid, uncollectible or void at Stripe. */
  status: string;
  total: number;
  currency: string;
  createdAt: number;
  /** What the invoice was for, in a line. */
  description: string;
  /** The processor's page for the invoice (pay it, download a receipt). */
  hostedUrl: string | null;
  pdfUrl: string | null;
}

export interface SubscriptionDescription {
  status: SubscriptionStatus;
  trialEnd: number | null;
  /** When an owner's cancel takes effect (the end of the period); null while the plan renews. */
  cancelAt: number | null;
  /** Null when nothing more will be charged (canceled, or set to end). */
  nextCharge: NextCharge | null;
  paymentMethod: PaymentMethodSummary | null;
  /** Newest first. */
  invoices: InvoiceSummary[];
}

/** What Colony tells the processor about the subscription it asks after. */
export type DescribedSubscription = Pick<
  SubscriptionRecord,
  'processorRef' | 'accountId' | 'status' | 'trialEnd' | 'items' | 'interval' | 'createdAt'
>;

/** Where the processor's hosted customer portal should open. */
export type PortalFlow = 'manage' | 'cancel';
