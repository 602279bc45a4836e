// Commerce settings: defaults, the Stripe key rules, and a sandbox that can never hold a live key.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../api/config.ts';

describe('commerce configuration', () => {
  it('defaults to the test processor, 60 checkout requests a minute and 24-hour idempotency keys', () => {
    expect(loadConfig({}).commerce).toMatchObject({
      processor: 'test',
      checkoutPerWindow: 60,
      idempotencyTtlHours: 24,
      allowInsecureProfiles: false,
      stripeSecretKey: undefined,
      stripeWebhookSecret: undefined,
    });
  });

  it.each([
    ['stripe without a key', { COLONY_PAYMENT_PROCESSOR: 'stripe' }, /STRIPE_SECRET_KEY: required/],
    ['a key that is not a Stripe secret key', { STRIPE_SECRET_KEY: 'pk_test_abc' }, /STRIPE_SECRET_KEY/],
    [
      'a live key in a sandbox',
      { COLONY_ENVIRONMENT: 'sandbox', COLONY_PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_live_abc' },
      /sandbox runs Stripe in test mode only/,
    ],
    ['idempotency keys kept under 24 hours', { COLONY_IDEMPOTENCY_TTL_HOURS: '12' }, /at least 24/],
    ['a webhook secret that is not a signing secret', { STRIPE_WEBHOOK_SECRET: 'sk_test_abc' }, /whsec_/],
    ['an unknown processor', { COLONY_PAYMENT_PROCESSOR: 'paypal' }, /COLONY_PAYMENT_PROCESSOR/],
  ])('refuses %s', (_name, env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('accepts a test key in a sandbox and a live key in production', () => {
    const sandbox = {
      COLONY_ENVIRONMENT: 'sandbox',
      COLONY_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_abc',
    };
    expect(loadConfig(sandbox).commerce.stripeSecretKey).toBe('sk_test_abc');
    const live = { COLONY_PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_live_abc' };
    expect(loadConfig(live).commerce.processor).toBe('stripe');
  });

  it('takes a webhook signing secret and never repeats a refused one', () => {
    const env = { COLONY_PAYMENT_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc' };
    expect(loadConfig({ ...env, STRIPE_WEBHOOK_SECRET: 'whsec_abc123' }).commerce.stripeWebhookSecret).toBe(
      'whsec_abc123',
    );
    expect(() => loadConfig({ ...env, STRIPE_WEBHOOK_SECRET: 'whsec_has spaces' })).toThrow(
      /^(?![\s\S]*has spaces)[\s\S]*STRIPE_WEBHOOK_SECRET/,
    );
  });
});
