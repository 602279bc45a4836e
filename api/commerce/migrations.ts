// Checkout sessions (ACP and UCP), their idempotency records and the subscriptions they lead to (ids 100–199).
import { eachDialect } from '../storage/column-types.ts';
import type { Migration } from '../storage/migration-runner.ts';

const tables = eachDialect(
  (t) => `
  CREATE TABLE checkout_sessions (
    id TEXT PRIMARY KEY,
    protocol TEXT NOT NULL,
    status TEXT NOT NULL,
    data ${t.json} NOT NULL,
    revision INTEGER NOT NULL,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL,
    expires_at ${t.bigint} NOT NULL
  );
  CREATE INDEX checkout_sessions_expiry ON checkout_sessions (status, expires_at);
  CREATE TABLE checkout_idempotency (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL,
    status_code INTEGER,
    headers ${t.json},
    body TEXT,
    created_at ${t.bigint} NOT NULL,
    locked_until ${t.bigint} NOT NULL,
    expires_at ${t.bigint} NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX checkout_idempotency_expiry ON checkout_idempotency (expires_at);
  CREATE TABLE subscriptions (
    account_id TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    checkout_session_id TEXT NOT NULL UNIQUE,
    status TEXT NOT NULL,
    plan TEXT NOT NULL,
    billing_interval TEXT NOT NULL,
    data ${t.json} NOT NULL,
    trial_end ${t.bigint},
    processor TEXT NOT NULL,
    processor_ref TEXT NOT NULL,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL
  )`,
);

const handoffs = eachDialect(
  (t) => `
  CREATE TABLE billing_handoffs (
    reference TEXT PRIMARY KEY,
    processor TEXT NOT NULL,
    checkout_session_id TEXT NOT NULL,
    account_id TEXT NOT NULL,
    status TEXT NOT NULL,
    data ${t.json} NOT NULL,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL
  );
  CREATE INDEX billing_handoffs_session ON billing_handoffs (checkout_session_id)`,
);

// Every finished checkout is an order, kept for good: a later plan change updates the account's one
// subscription, so the order ids agents were given must not depend on that row. Orders until now were
// named by their subscription's id, which stays their id.
const orders = eachDialect(
  (t) => `
  CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    checkout_session_id TEXT NOT NULL UNIQUE,
    subscription_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    plan TEXT NOT NULL,
    billing_interval TEXT NOT NULL,
    data ${t.json} NOT NULL,
    trial_end ${t.bigint},
    created_at ${t.bigint} NOT NULL
  );
  CREATE INDEX orders_account ON orders (account_id, created_at);
  INSERT INTO orders (id, account_id, checkout_session_id, subscription_id, kind, plan, billing_interval, data,
    trial_end, created_at)
  SELECT id, account_id, checkout_session_id, id, 'subscribe', plan, billing_interval, data, trial_end, created_at
  FROM subscriptions`,
);

/** Applied after the identity, memory and backups ones that came before it in time. */
export const ordersMigration: Migration = {
  id: 102,
  name: 'orders: one per finished checkout, the first buying the subscription and later ones changing it',
  sql: orders,
};

/**
 * Stripe's subscription events are answered by reading the subscription from Stripe: `synced_at` is
 * when, so a slower sync that read an older state never writes over a newer one.
 */
export const subscriptionSyncMigration: Migration = {
  id: 103,
  name: 'subscriptions: when their state was last read from the processor, found by processor id',
  sql: eachDialect(
    (t) => `
  ALTER TABLE subscriptions ADD COLUMN synced_at ${t.bigint};
  CREATE INDEX subscriptions_processor_ref ON subscriptions (processor, processor_ref)`,
  ),
};

export const commerceMigrations: readonly Migration[] = [
  {
    id: 100,
    name: 'checkout sessions, checkout idempotency records and subscriptions',
    sql: tables,
  },
  {
    id: 101,
    name: 'billing hand-offs from the hosted billing page to a payment processor',
    sql: handoffs,
  },
];

/**
 * Agent platforms an operator registered for ACP order webhooks: the SHA-256 of the API key a
 * platform sends as its bearer token, the webhook endpoint and the secret its requests are signed
 * with, and the ACP version whose webhook schema the endpoint takes. The events themselves are jobs.
 */
export const agentPlatformsMigration: Migration = {
  id: 106,
  name: 'agent platforms: API key hash, order webhook endpoint, signing secret and ACP version',
  sql: eachDialect(
    (t) => `
  CREATE TABLE agent_platforms (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    api_version TEXT NOT NULL,
    webhook_url TEXT NOT NULL,
    webhook_secret TEXT NOT NULL,
    created_at ${t.bigint} NOT NULL,
    updated_at ${t.bigint} NOT NULL
  )`,
  ),
};
