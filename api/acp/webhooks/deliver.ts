// The job that delivers one ACP order event: signed, bounded by a timeout, done on a 2xx. Anything
// else throws, so the job runner retries it with backoff and jitter until its attempts run out.

/** A receiver may be down for hours: the backoff doubles from 1 s up to an hour between attempts. */
const WEBHOOK_RETRY_CAP_MS = 60 * 60 * 1000;

import { type OrderWebhookInput, orderWebhookInput } from '../../commerce/order-webhooks/order-events.ts';
import type { AgentPlatformsRepo } from '../../commerce/order-webhooks/platforms-repo.ts';
import { type JobHandler, retryDelayMs } from '../../domain/jobs/job-runner.ts';
import { merchantSignature } from './signature.ts';

export interface DeliveryOptions {
  platforms: AgentPlatformsRepo;
  timeoutMs: number;
  maxAttempts: number;
  now: () => number;
}

export function orderWebhookHandler(o: DeliveryOptions): JobHandler<OrderWebhookInput> {
  return {
    description: 'Delivers one signed ACP order event to its agent platform’s webhook endpoint.',
    input: orderWebhookInput,
    maxAttempts: o.maxAttempts,
    retryDelayMs: (attempt) => retryDelayMs(attempt, Math.random, WEBHOOK_RETRY_CAP_MS),
    async run(input, { signal }) {
      // The endpoint and secret are read now: a URL or secret changed meanwhile applies to retries.
      const platform = await o.platforms.withSecret(input.platformId);
      if (!platform) return { dropped: 'the platform was removed' };
      const at = o.now();
      const res = await fetch(platform.webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'merchant-signature': merchantSignature(platform.webhookSecret, input.body, Math.floor(at / 1000)),
          // The same on every attempt: the receiver dedupes on it.
          'request-id': input.eventId,
          timestamp: new Date(at).toISOString(),
        },
        body: input.body,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(o.timeoutMs)]),
      });
      await res.body?.cancel();
      if (res.status < 200 || res.status > 299)
        throw new Error(`the webhook endpoint of ${platform.id} answered ${res.status}`);
      return { status: res.status };
    },
  };
}
