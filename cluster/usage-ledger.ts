// The usage ledger the controller's meter writes and the API reads: one ConfigMap per office
// namespace holding, per billing period, the credits its agent pods used, and per pod how far they
// have been counted. Both sides read and write it through these functions only.
import type { V1ConfigMap } from '@kubernetes/client-node';
import { z } from 'zod';
import { LABEL_MANAGED_BY, MANAGED_BY } from './labels.ts';

export const USAGE_CONFIGMAP = 'colony-usage';
/** On the usage ConfigMap, so an operator finds every office's ledger with one label selector. */
export const LABEL_USAGE = 'colony.ai/usage';

/** A standard agent pod (1 vCPU, 2 GiB) weighs this many thousandths of a credit per hour. */
export const STANDARD_WEIGHT = 1000;
/** Usage is summed per second (milli-credit-seconds) and billed per thousandth of a credit (an hour). */
const SECONDS_PER_HOUR = 3600;

/** Billing periods whose usage the ledger keeps: this calendar month and the two before it. */
export const KEPT_PERIODS = 3;

const podEntry = z.tuple([z.number().int().positive(), z.number().int().nonnegative()]);
const ledgerSchema = z.object({
  version: z.literal(1),
  /** Per pod uid: [weight in thousandths of a standard pod, counted up to (epoch seconds)]. */
  pods: z.record(z.string(), podEntry),
  /** Per period (`YYYY-MM`, UTC): milli-credit-seconds counted (weight × seconds). */
  periods: z.record(z.string(), z.number().int().nonnegative()),
});
export type UsageLedger = z.infer<typeof ledgerSchema>;

export const emptyLedger = (): UsageLedger => ({ version: 1, pods: {}, periods: {} });

/** The ledger a ConfigMap holds; an absent or unreadable one starts empty (its data is replaced whole). */
export function readLedger(cm: V1ConfigMap | undefined): UsageLedger {
  const raw = cm?.data?.ledger;
  if (!raw) return emptyLedger();
  try {
    const parsed = ledgerSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : emptyLedger();
  } catch {
    return emptyLedger();
  }
}

/** The ConfigMap that holds `ledger`; `resourceVersion` makes the write fail if another writer came first. */
export function ledgerConfigMap(
  namespace: string,
  ledger: UsageLedger,
  resourceVersion?: string,
): V1ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: USAGE_CONFIGMAP,
      namespace,
      labels: { [LABEL_USAGE]: 'ledger', [LABEL_MANAGED_BY]: MANAGED_BY },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    data: { ledger: JSON.stringify(ledger) },
  };
}

/** The UTC calendar month of an instant, `YYYY-MM`: usage periods are calendar months. */
export function usagePeriod(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Start (inclusive) and end (exclusive) of a period, epoch ms. */
export function periodBounds(period: string): { start: number; end: number } {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return { start: Date.UTC(y, m - 1, 1), end: Date.UTC(y, m, 1) };
}

/** Whole thousandths of a credit in a milli-credit-second sum (the remainder is billed once it completes). */
export function milliCredits(milliCreditSeconds: number): number {
  return Math.floor(milliCreditSeconds / SECONDS_PER_HOUR);
}

/** The period's usage in thousandths of a credit (0 when the ledger has none). */
export function periodMilliCredits(ledger: UsageLedger, period: string): number {
  return milliCredits(ledger.periods[period] ?? 0);
}
