// Opens the configured database (embedded SQLite or PostgreSQL), migrates it and exposes the repositories.

import { BillingHandoffsRepo } from './billing-handoffs-repo.ts';
import { CheckoutIdempotencyRepo } from './checkout-idempotency-repo.ts';
import { CheckoutSessionsRepo } from './checkout-sessions-repo.ts';
import { ConnectRepo } from './connect-repo.ts';
import { IdentityRepos } from './identity-repos.ts';
import { JobsRepo } from './jobs-repo.ts';
import { migrate } from './migrations.ts';
import { PostgresDriver } from './postgres-driver.ts';
import { RateLimitCountersRepo } from './rate-limit-counters-repo.ts';
import { SkillsRepo } from './skills-repo.ts';
import { SnapshotsRepo } from './snapshots-repo.ts';
import type { Dialect, SqlDriver } from './sql-driver.ts';
import { SqliteDriver } from './sqlite-driver.ts';
import { SubscriptionsRepo } from './subscriptions-repo.ts';
import { TasksRepo } from './tasks-repo.ts';

export type StorageTarget =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema?: string; maxConnections?: number };

export interface Storage {
  readonly kind: Dialect;
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
  /** Round-trips to the database; resolves with the latency in milliseconds. */
  ping(): Promise<number>;
  close(): Promise<void>;
}

export async function openStorage(target: StorageTarget): Promise<Storage> {
  const driver: SqlDriver =
    target.kind === 'sqlite'
      ? new SqliteDriver(target.file)
      : new PostgresDriver({
          url: target.url,
          ...(target.schema ? { schema: target.schema } : {}),
          ...(target.maxConnections ? { maxConnections: target.maxConnections } : {}),
        });
  try {
    await migrate(driver);
  } catch (err) {
    await driver.close();
    throw err;
  }
  return {
    kind: driver.dialect,
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
    async ping() {
      const started = performance.now();
      await driver.query('SELECT 1');
      return performance.now() - started;
    },
    close: () => driver.close(),
  };
}
