// Builds what both checkout protocols and the billing page share: the checkout domain, the checkout rate
// limit (one budget per address for ACP and UCP together), idempotency settings and public URLs.

import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import { type CatalogItem, findCatalogItem } from '../domain/pricing/catalog.ts';
import type { PriceList } from '../domain/pricing/price-list.ts';
import type { Metrics } from '../observability/metrics.ts';
import { type CounterStore, RateLimiter } from '../shared/rate-limit/rate-limiter.ts';
import { AdmissionGate } from '../shared/write-admission.ts';
import { CheckoutService } from './checkout-service.ts';
import type { IdempotencySettings } from './idempotent-request.ts';
import { OrderEvents, type RenderOrderEvent } from './order-webhooks/order-events.ts';
import type { PaymentProcessor } from './processors/processor.ts';
import { StripeProcessor } from './processors/stripe-processor.ts';
import { TestProcessor } from './processors/test-processor.ts';

export interface CommerceUrls {
  continueUrl(sessionId: string): string;
  termsUrl: string;
  privacyUrl: string;
  accountUrl: string;
}

export interface CommerceServices {
  checkout: CheckoutService;
  limiter: RateLimiter;
  idempotency: IdempotencySettings;
  urls: CommerceUrls;
  processor: PaymentProcessor;
  /** ACP order events, written with the changes that cause them and delivered as jobs. */
  orderEvents: OrderEvents;
  /** SQLite only: the checkout writes running at once (api/shared/write-admission.ts). */
  writes?: AdmissionGate;
}

// Enough writes at once to fill each shared fsync, few enough that a read waits for little.
const SQLITE_CHECKOUT_WRITES = 12;

/** What the commerce surfaces (ACP, UCP, the billing pages, the webhook) are mounted with. */
export interface CommerceOptions {
  config: Config;
  storage: Storage;
  commerce: CommerceServices;
  prices: PriceList;
  metrics: Metrics;
  now: () => number;
}

const HOUR_MS = 60 * 60 * 1000;

export function commerceUrls(baseUrl: string): CommerceUrls {
  return {
    continueUrl: (id) => `${baseUrl}/checkout/${encodeURIComponent(id)}`,
    termsUrl: `${baseUrl}/legal/terms`,
    privacyUrl: `${baseUrl}/legal/privacy`,
    accountUrl: `${baseUrl}/account`,
  };
}

export function buildCommerce(deps: {
  config: Config;
  storage: Storage;
  prices: PriceList;
  catalog: readonly CatalogItem[];
  store: CounterStore;
  now: () => number;
  /** Order webhooks speak ACP; the domain below it takes the renderer from the composition root. */
  renderOrderEvent: RenderOrderEvent;
}): CommerceServices {
  const { config, storage, prices, catalog, store, now } = deps;
  const urls = commerceUrls(config.baseUrl);
  return {
    checkout: new CheckoutService({
      sessions: storage.checkoutSessions,
      catalog,
      trialDays: prices.trialDays,
      priceListVersion: prices.version,
      now,
    }),
    limiter: new RateLimiter({
      bucket: 'checkout',
      limit: config.commerce.checkoutPerWindow,
      windowMs: config.rateLimit.windowSeconds * 1000,
      store,
      now,
    }),
    idempotency: { ttlMs: config.commerce.idempotencyTtlHours * HOUR_MS, lockMs: 60_000 },
    urls,
    processor: buildProcessor(config, storage, now),
    orderEvents: new OrderEvents({
      jobs: storage.jobs,
      permalinkUrl: urls.accountUrl,
      titleOf: (itemId) => findCatalogItem(catalog, itemId)?.name ?? itemId,
      render: deps.renderOrderEvent,
      maxAttempts: config.commerce.orderWebhooks.maxAttempts,
      now,
    }),
    ...(storage.kind === 'sqlite' ? { writes: new AdmissionGate(SQLITE_CHECKOUT_WRITES) } : {}),
  };
}

function buildProcessor(config: Config, storage: Storage, now: () => number): PaymentProcessor {
  const { processor, stripeSecretKey, stripeApiUrl, processorTimeoutMs } = config.commerce;
  if (processor === 'stripe' && stripeSecretKey) {
    return new StripeProcessor({
      secretKey: stripeSecretKey,
      timeoutMs: processorTimeoutMs,
      meterEvent: config.commerce.stripeMeterEvent,
      ...(stripeApiUrl ? { apiUrl: stripeApiUrl } : {}),
    });
  }
  return new TestProcessor({ baseUrl: config.baseUrl, handoffs: storage.billingHandoffs, now });
}
