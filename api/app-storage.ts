// The application's storage: every domain's repositories on one database, and every domain's
// migrations in the one order they have always run in.

import { backupsMigrations } from './backups/migrations.ts';
import { SnapshotsRepo } from './backups/snapshots-repo.ts';
import { BillingHandoffsRepo } from './commerce/billing-handoffs-repo.ts';
import { CheckoutIdempotencyRepo } from './commerce/checkout-idempotency-repo.ts';
import { CheckoutSessionsRepo } from './commerce/checkout-sessions-repo.ts';
import { officeBillingMigration } from './commerce/entitlements/migrations.ts';
import { OfficeBillingRepo } from './commerce/entitlements/office-billing-repo.ts';
import {
  agentPlatformsMigration,
  commerceMigrations,
  ordersMigration,
  subscriptionSyncMigration,
} from './commerce/migrations.ts';
import { AgentPlatformsRepo } from './commerce/order-webhooks/platforms-repo.ts';
import { OrdersRepo } from './commerce/orders-repo.ts';
import { SubscriptionsRepo } from './commerce/subscriptions-repo.ts';
import { usageReportsMigration } from './commerce/usage/migrations.ts';
import { UsageReportsRepo } from './commerce/usage/usage-reports-repo.ts';
import { ConnectRepo } from './connect/connect-repo.ts';
import { connectMigrations } from './connect/migrations.ts';
import { JobsRepo } from './domain/jobs/jobs-repo.ts';
import { domainMigrations } from './domain/migrations.ts';
import { SkillsRepo } from './domain/skills/skills-repo.ts';
import { IdentityRepos } from './identity/identity-repos.ts';
import { agentKeyMigration, identityMigrations, keyRevealMigrations } from './identity/migrations.ts';
import { memoryIndexScopeMigration, memoryMigrations } from './memory/migrations.ts';
import { officeMigrations } from './office/migrations.ts';
import { TasksRepo } from './office/tasks-repo.ts';
import { RateLimitCountersRepo } from './shared/rate-limit/rate-limit-counters-repo.ts';
import type { Migration } from './storage/migration-runner.ts';
import { openDatabase, type StorageHandle, type StorageTarget } from './storage/open-database.ts';
import type { SqlDriver } from './storage/sql-driver.ts';

export interface Storage extends StorageHandle {
  readonly skills: SkillsRepo;
  readonly jobs: JobsRepo;
  readonly rateLimitCounters: RateLimitCountersRepo;
  readonly tasks: TasksRepo;
  /** OAuth Connect states and connection records (api/connect). */
  readonly connect: ConnectRepo;
  readonly checkoutSessions: CheckoutSessionsRepo;
  readonly checkoutIdempotency: CheckoutIdempotencyRepo;
  readonly subscriptions: SubscriptionsRepo;
  readonly orders: OrdersRepo;
  readonly billingHandoffs: BillingHandoffsRepo;
  /** Agent platforms registered for ACP order webhooks (api/commerce/order-webhooks). */
  readonly agentPlatforms: AgentPlatformsRepo;
  /** The billing account of each self-serve office (none: operator-managed). */
  readonly officeBilling: OfficeBillingRepo;
  /** Metered usage reported to the processor, per office and period (api/commerce/usage). */
  readonly usageReports: UsageReportsRepo;
  /** Accounts, sessions, office membership, API keys, OAuth state (api/identity). */
  readonly identity: IdentityRepos;
  /** Backups: snapshot metadata, restores, schedules (api/backups). */
  readonly snapshots: SnapshotsRepo;
}

/**
 * Not sorted by id: a fresh database replays exactly this order (memories reference accounts, for
 * one), and an existing one skips the ids its schema_migrations already holds.
 */
export const migrations: readonly Migration[] = [
  ...domainMigrations, // 1
  ...officeMigrations, // 300
  ...connectMigrations, // 301
  ...commerceMigrations, // 100, 101
  ...identityMigrations, // 200–202
  ...memoryMigrations, // 203
  ...backupsMigrations, // 400, 401
  ...keyRevealMigrations, // 204
  ordersMigration, // 102
  subscriptionSyncMigration, // 103
  memoryIndexScopeMigration, // 205
  agentPlatformsMigration, // 106
  officeBillingMigration, // 104
  agentKeyMigration, // 107
  usageReportsMigration, // 105
];

/** Every repository on one driver (a test may hand it a driver that observes the queries). */
export function storageRepositories(driver: SqlDriver): Omit<Storage, keyof StorageHandle> {
  return {
    skills: new SkillsRepo(driver),
    jobs: new JobsRepo(driver),
    rateLimitCounters: new RateLimitCountersRepo(driver),
    tasks: new TasksRepo(driver),
    connect: new ConnectRepo(driver),
    checkoutSessions: new CheckoutSessionsRepo(driver),
    checkoutIdempotency: new CheckoutIdempotencyRepo(driver),
    subscriptions: new SubscriptionsRepo(driver),
    orders: new OrdersRepo(driver),
    billingHandoffs: new BillingHandoffsRepo(driver),
    agentPlatforms: new AgentPlatformsRepo(driver),
    officeBilling: new OfficeBillingRepo(driver),
    usageReports: new UsageReportsRepo(driver),
    identity: new IdentityRepos(driver),
    snapshots: new SnapshotsRepo(driver),
  };
}

export function openStorage(target: StorageTarget): Promise<Storage> {
  return openDatabase(target, { migrations, repositories: storageRepositories });
}
