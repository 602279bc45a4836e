// Reports the metered usage of billed offices to the payment processor, on the poller leader. Each
// pass first writes down what is new (a report from the last reported total to the ledger's), then
// sends every report not yet confirmed, under its deterministic identifier: a crash between the
// two, a lost answer or a second replica makes a retry of the same event, never a second one.
import { periodBounds, periodMilliCredits } from '../../../cluster/usage-ledger.ts';
import type { Storage } from '../../app-storage.ts';
import type { Poller } from '../../shared/poller-gate.ts';
import type { PaymentProcessor } from '../processors/processor.ts';
import type { LedgerSource } from './office-ledgers.ts';
import type { UsageReportRecord } from './usage-reports-repo.ts';

export interface UsageReporterOptions {
  ledgers: LedgerSource;
  storage: Pick<Storage, 'usageReports' | 'officeBilling' | 'subscriptions'>;
  processor: Pick<PaymentProcessor, 'name' | 'reportUsage'>;
  intervalMs: number;
  now: () => number;
  log: { warn(obj: object, msg: string): void };
}

export interface ReportPass {
  added: number;
  sent: number;
  failed: number;
}

/** Reports sent per pass; the rest wait for the next one. */
const BATCH = 200;

/** Inside the report's period even when it was written down after the period ended. */
export function reportTimestamp(r: Pick<UsageReportRecord, 'period' | 'createdAt'>): number {
  return Math.min(r.createdAt, periodBounds(r.period).end - 1000);
}

export class UsageReporter implements Poller {
  private readonly o: UsageReporterOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(o: UsageReporterOptions) {
    this.o = o;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.pass(), this.o.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass; passes of one replica never overlap. */
  pass(): Promise<ReportPass> {
    const run = this.running.then(() => this.passOnce());
    this.running = run.catch((err) =>
      this.o.log.warn({ err: (err as Error).message }, 'usage report pass failed; retrying next pass'),
    );
    return run;
  }

  private async passOnce(): Promise<ReportPass> {
    const added = await this.writeDown();
    let sent = 0;
    let failed = 0;
    for (const r of await this.o.storage.usageReports.pending(BATCH)) {
      if (await this.send(r)) sent++;
      else failed++;
    }
    return { added, sent, failed };
  }

  /** Adds a report for every billed office and period whose ledger is ahead of what was reported. */
  private async writeDown(): Promise<number> {
    const { storage, ledgers, processor, now } = this.o;
    let added = 0;
    for (const [officeId, namespace] of await ledgers.offices()) {
      // Operator-managed offices are metered, but nobody is billed for them.
      const accountId = await storage.officeBilling.accountOf(officeId);
      const subscription = accountId ? await storage.subscriptions.ofAccount(accountId) : undefined;
      if (!accountId || subscription?.processor !== processor.name) continue;
      const ledger = await ledgers.ledgerIn(namespace);
      for (const period of Object.keys(ledger.periods)) {
        const total = periodMilliCredits(ledger, period);
        const reported = await storage.usageReports.reportedTotal(officeId, period);
        if (total <= reported) continue;
        const stretch = {
          officeId,
          accountId,
          period,
          fromTotal: reported,
          toTotal: total,
          createdAt: now(),
        };
        if (await storage.usageReports.add(stretch)) added++;
      }
    }
    return added;
  }

  private async send(r: UsageReportRecord): Promise<boolean> {
    const { storage, processor, now, log } = this.o;
    const subscription = await storage.subscriptions.ofAccount(r.accountId);
    if (!subscription) return false;
    try {
      await processor.reportUsage({
        identifier: r.identifier,
        subscriptionRef: subscription.processorRef,
        quantity: r.toTotal - r.fromTotal,
        timestamp: reportTimestamp(r),
      });
    } catch (err) {
      log.warn({ report: r.identifier, err: (err as Error).message }, 'usage report not taken; retrying');
      return false;
    }
    await storage.usageReports.markReported(r.identifier, now());
    return true;
  }
}
