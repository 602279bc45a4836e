// Builds the usage side of commerce: what an account used this period (for /me, /account and the
// CLI) and, with a cluster, the poller that reports billed offices' usage to the processor.
import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import type { Storage } from '../../app-storage.ts';
import type { Config } from '../../config.ts';
import type { PriceList } from '../../domain/pricing/price-list.ts';
import type { Poller } from '../../shared/poller-gate.ts';
import type { PaymentProcessor } from '../processors/processor.ts';
import { AccountUsage } from './account-usage.ts';
import { ClusterLedgers } from './office-ledgers.ts';
import { UsageReporter } from './usage-reporter.ts';

export interface UsageServices {
  account: AccountUsage;
  /** Present with a cluster and COLONY_USAGE_REPORT_SECONDS > 0; runs on the poller leader. */
  reporter: UsageReporter | undefined;
  /** The reporter, when there is one: what the poller leader runs. */
  pollers: Poller[];
}

export function buildUsage(deps: {
  config: Config;
  storage: Storage;
  prices: PriceList;
  kc: KubeConfig | undefined;
  processor: PaymentProcessor;
  log: FastifyBaseLogger;
  now: () => number;
}): UsageServices {
  const { config, storage, prices, kc, processor, log, now } = deps;
  const ledgers = kc ? new ClusterLedgers(kc) : undefined;
  const seconds = config.commerce.usageReportSeconds;
  const reporter =
    ledgers && seconds > 0
      ? new UsageReporter({ ledgers, storage, processor, intervalMs: seconds * 1000, now, log })
      : undefined;
  return {
    account: new AccountUsage({ storage, prices, ledgers, now, log }),
    reporter,
    pollers: reporter ? [reporter] : [],
  };
}
