// The application's storage: every domain's repositories on one database, and every domain's
// migrations in the one order they have always run in.
import { domainMigrations } from './domain/migrations.ts';
import { BillingHandoffsRepo } from './storage/billing-handoffs-repo.ts';
import { CheckoutIdempotencyRepo } from './storage/checkout-idempotency-repo.ts';
import { CheckoutSessionsRepo } from './storage/checkout-sessions-repo.ts';
import { ConnectRepo } from './storage/connect-repo.ts';
import { IdentityRepos } from './storage/identity-repos.ts';
import { JobsRepo } from './storage/jobs-repo.ts';
import type { Migration } from './storage/migration-runner.ts';
import { backupsMigrations } from './storage/migrations-backups.ts';
import { commerceMigrations } from './storage/migrations-commerce.ts';
import { identityMigrations } from './storage/migrations-identity.ts';
import { integrationMigrations } from './storage/migrations-integrations.ts';
import { openDatabase, type StorageHandle, type StorageTarget } from './storage/open-database.ts';
import { RateLimitCountersRepo } from './storage/rate-limit-counters-repo.ts';
import { SkillsRepo } from './storage/skills-repo.ts';
import { SnapshotsRepo } from './storage/snapshots-repo.ts';
import { SubscriptionsRepo } from './storage/subscriptions-repo.ts';
import { TasksRepo } from './storage/tasks-repo.ts';

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
  readonly billingHandoffs: BillingHandoffsRepo;
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
  ...domainMigrations,
  ...integrationMigrations,
  ...commerceMigrations,
  ...identityMigrations,
  ...backupsMigrations,
];

export function openStorage(target: StorageTarget): Promise<Storage> {
  return openDatabase(target, {
    migrations,
    repositories: (driver) => ({
      skills: new SkillsRepo(driver),
      jobs: new JobsRepo(driver),
      rateLimitCounters: new RateLimitCountersRepo(driver),
      tasks: new TasksRepo(driver),
      connect: new ConnectRepo(driver),
      checkoutSessions: new CheckoutSessionsRepo(driver),
      checkoutIdempotency: new CheckoutIdempotencyRepo(driver),
      subscriptions: new SubscriptionsRepo(driver),
      billingHandoffs: new BillingHandoffsRepo(driver),
      identity: new IdentityRepos(driver),
      snapshots: new SnapshotsRepo(driver),
    }),
  });
}
