// Pure: what every checkout response tells the buyer in words: the trial, tax, the hand-off and the outcome.
import type { CheckoutSession } from './checkout-session.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

// Written out rather than Intl.NumberFormat, whose format() was a visible share of a checkout
// create's CPU; the text is the same as en-US with two decimals ($1,234.50; $-0.05).
export function dollars(cents: number): string {
  const whole = Math.round(Math.abs(cents));
  const units = Math.floor(whole / 100)
    .toString()
    .replace(/\B(?=(\d{3})+$)/g, ',');
  // As Intl does: a negative amount keeps its sign even when it rounds to zero (and so does -0).
  const sign = cents < 0 || Object.is(cents, -0) ? '-' : '';
  return `$${sign}${units}.${String(whole % 100).padStart(2, '0')}`;
}

export const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The trial starts when the owner finishes at continue_url, so the first charge is counted from then. */
export function firstChargeAt(startedAt: number, trialDays: number): number {
  return startedAt + trialDays * DAY_MS;
}

export type NoteKind = 'trial' | 'tax' | 'handoff' | 'problem' | 'outcome' | 'sandbox';

export interface SessionNote {
  kind: NoteKind;
  /** Plain text; a note that names continue_url also has a Markdown form with a link. */
  text: string;
  markdown?: string;
  /** For `problem` notes: the cart problem they come from. */
  problemIndex?: number;
}

function trialNote(s: CheckoutSession, now: number): SessionNote | undefined {
  const { cart } = s;
  if (cart.interval === null || cart.problems.length > 0) return undefined;
  const every = cart.interval === 'year' ? 'every year' : 'every month';
  const start = s.order ? null : now;
  const when =
    start === null
      ? ''
      : ` If the account owner finishes today, the first charge is on ${isoDate(firstChargeAt(start, cart.trialDays))}.`;
  return {
    kind: 'trial',
    text:
      `Free trial: ${cart.trialDays} days from the moment the account owner finishes at the billing page; nothing is charged today. ` +
      `After the trial, ${dollars(cart.total)} plus any tax is charged ${every}.${when}`,
  };
}

function outcomeNote(s: CheckoutSession): SessionNote | undefined {
  switch (s.status) {
    case 'completed':
      return {
        kind: 'outcome',
        text:
          s.order?.trialEnd != null
            ? `The account owner finished the purchase; the trial ends on ${isoDate(s.order.trialEnd)}.`
            : 'The account owner finished the purchase.',
      };
    case 'canceled':
      return { kind: 'outcome', text: 'This checkout session was canceled; start a new one to buy.' };
    case 'expired':
      return {
        kind: 'outcome',
        text: `This checkout session expired at ${new Date(s.expiresAt).toISOString()} (six hours after it was created); start a new one to buy.`,
      };
    default:
      return undefined;
  }
}

const SANDBOX_NOTE: SessionNote = {
  kind: 'sandbox',
  text: "This is Colony's sandbox: the payment processor runs in test mode, nothing is ever charged, and data here is disposable.",
};

/** Notes in the order they are shown; presenters turn them into each protocol's messages. */
export function sessionNotes(
  s: CheckoutSession,
  continueUrl: string,
  now: number,
  opts: { sandbox?: boolean } = {},
): SessionNote[] {
  const notes: SessionNote[] = s.cart.problems.map((p, i) => ({
    kind: 'problem',
    text: p.message,
    problemIndex: i,
  }));
  const outcome = outcomeNote(s);
  if (outcome) return opts.sandbox ? [...notes, outcome, SANDBOX_NOTE] : [...notes, outcome];
  const trial = trialNote(s, now);
  if (trial) notes.push(trial);
  notes.push({
    kind: 'tax',
    text: 'Tax is assessed by the payment processor from the billing address entered at the billing page.',
  });
  const handoffText =
    s.status === 'requires_escalation'
      ? 'The account owner must finish this purchase themselves: send them to the billing page'
      : 'No payment is taken through this API: the account owner finishes the purchase at the billing page';
  notes.push({
    kind: 'handoff',
    text: `${handoffText}, ${continueUrl}, to sign in or sign up and enter payment details.`,
    markdown: `${handoffText}, [${continueUrl}](${continueUrl}), to sign in or sign up and enter payment details.`,
  });
  if (opts.sandbox) notes.push(SANDBOX_NOTE);
  return notes;
}
