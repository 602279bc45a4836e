// SQLite driver on node:sqlite: the embedded default that needs no server.
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { GroupSync, type SyncFn } from './group-sync.ts';
import { ReadBatch } from './read-batch.ts';
import {
  DatabaseUnavailableError,
  type SqlDriver,
  type SqlExecutor,
  type SqlValue,
  type Statement,
  statementText,
  UniqueViolationError,
} from './sql-driver.ts';
import type { CheckpointerData, CheckpointerMessage, DriverMessage } from './sqlite-checkpointer.ts';
import { type WalFileSync, walFileSync } from './wal-file-sync.ts';

// SQLITE_BUSY and SQLITE_LOCKED (primary result codes): another writer held the file past busy_timeout.
const BUSY_CODES = new Set([5, 6]);

/** A lock held past busy_timeout is the database being unavailable, not the statement being wrong. */
function translate(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  if (/UNIQUE constraint failed/.test(err.message)) return new UniqueViolationError(err.message);
  const errcode = (err as { errcode?: unknown }).errcode;
  if (typeof errcode === 'number' && BUSY_CODES.has(errcode & 0xff)) return new DatabaseUnavailableError(err);
  return err;
}

// node:sqlite takes numbered parameters as ?NNN; repositories write PostgreSQL's $NNN. A bare
// parameter as LIMIT or OFFSET is one the query planner reads the value of, so SQLite re-prepares the
// statement every time it is bound anew: wrapped in a CAST, the cached plan stays (measured: a
// 20-row list 12.4 µs bare, 5.5 µs wrapped; a ranked recall 70 µs against 25 µs).
export const toSqliteParams = (sql: string): string =>
  sql.replace(/\b(LIMIT|OFFSET)\s+\$(\d+)/gi, '$1 CAST(?$2 AS INTEGER)').replace(/\$(\d+)/g, '?$1');

function toInput(v: SqlValue): SQLInputValue {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

// A statement that starts with SELECT never waits for the disk. Any other waits when it changed rows,
// or when a commit is still waiting for its sync: what it found (a held key, a claimed job) may be that
// commit, and must not be answered before it is on disk. An idle poller's UPDATE of nothing never waits.
const isRead = (sql: string): boolean => /^\s*SELECT\b/i.test(sql);

// Checkpoints run on a worker thread (sqlite-checkpointer.ts). At RESTART_FRAMES frames in the WAL
// (16 MiB of 4 KiB pages) it asks for a pass with the writes held back, after which the WAL starts
// over. The event loop checkpoints only as a backstop, at BACKSTOP_PAGES, if that never happens
// (the worker gone): a checkpoint inside a COMMIT copies pages and fsyncs the file on the event loop.
const BACKSTOP_PAGES = 10_000;
const RESTART_FRAMES = 4_000;
const CHECKPOINT_INTERVAL_MS = 100;

interface Checkpointer {
  /** Runs a pass on the worker; resolves true when it has run, false if the worker is gone. */
  checkpointNow(): Promise<boolean>;
  stop(): Promise<void>;
}

function startCheckpointer(file: string, onQuietWanted: () => void): Checkpointer {
  const data: CheckpointerData = { file, intervalMs: CHECKPOINT_INTERVAL_MS, restartFrames: RESTART_FRAMES };
  const worker = new Worker(new URL('./sqlite-checkpointer.ts', import.meta.url), { workerData: data });
  const exited = once(worker, 'exit').then(() => undefined);
  let answered: ((ran: boolean) => void) | undefined;
  worker.on('message', (message: CheckpointerMessage) => {
    if (message === 'quiet') onQuietWanted();
    else {
      answered?.(true);
      answered = undefined;
    }
  });
  // A dead checkpointer costs speed, not data: the backstop keeps the WAL bounded.
  worker.on('error', () => {});
  worker.unref();
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  return {
    checkpointNow() {
      if (gone) return Promise.resolve(false);
      const { promise, resolve } = Promise.withResolvers<boolean>();
      answered = resolve;
      // Referenced while writes wait for the answer: a close() waiting behind them must see it come.
      worker.ref();
      worker.postMessage('checkpoint' satisfies DriverMessage);
      return Promise.race([promise, exited.then(() => false)]).finally(() => worker.unref());
    },
    async stop() {
      // Unreferenced while it works, so it never keeps a process alive; waited for here, so it must be.
      worker.ref();
      worker.postMessage('close' satisfies DriverMessage);
      await exited;
    },
  };
}

export interface SqliteDriverOptions {
  /** Replaces the fdatasync of the -wal file (tests). */
  sync?: SyncFn;
}

/**
 * node:sqlite is synchronous, so a single statement is atomic in the event loop. A transaction
 * spans awaits, so every statement waits on one lock while a transaction is open.
 *
 * Reads outside a transaction are queued and run together at the end of the event loop's turn
 * (read-batch.ts); any other statement first runs the reads asked for before it, so no statement
 * ever overtakes an earlier one.
 *
 * Durability: in WAL mode with synchronous=NORMAL a commit writes the WAL without an fsync (SQLite
 * still syncs around checkpoints); the write's promise resolves only after a shared fdatasync of the
 * WAL, on the thread pool, that started after the commit (group commit). So an answer sent after an
 * awaited write still means the write is on disk, and the event loop never waits on the disk.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  private readonly db: DatabaseSync;
  private lock: Promise<void> = Promise.resolve();
  private readonly statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  /** Absent for databases with no WAL (':memory:'), whose commits have nothing to wait for. */
  private readonly durable: GroupSync | undefined;
  private readonly wal: WalFileSync | undefined;
  private readonly checkpointer: Checkpointer | undefined;
  private quietPasses = 0;
  /** Set from BEGIN to COMMIT or ROLLBACK: reads never run inside a transaction. */
  private openTransaction: Promise<void> | undefined;
  private changesStatement: ReturnType<DatabaseSync['prepare']> | undefined;
  /**
   * Reads wait only for a transaction that is open. One queued behind it runs the waiting reads
   * before its BEGIN, and a quiet checkpoint (which holds the lock but opens no transaction) holds
   * back writes alone.
   */
  private readonly reads = new ReadBatch(() => this.openTransaction);

  constructor(file: string, options: SqliteDriverOptions = {}) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new DatabaseSync(file);
    this.db.exec('PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
    const mode = this.db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode?: string } | undefined;
    // Without a WAL (in memory, or a file system that refuses one) SQLite's own FULL sync stays.
    if (mode?.journal_mode !== 'wal') return;
    this.db.exec(`PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.checkpointer = startCheckpointer(file, () => void this.quietCheckpoint());
    if (!options.sync) this.wal = walFileSync(file);
    this.durable = new GroupSync(options.sync ?? (this.wal as WalFileSync).sync);
  }

  private run<T>(sql: string, params: readonly SqlValue[]): T[] {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(toSqliteParams(sql));
      this.statements.set(sql, stmt);
    }
    try {
      return stmt.all(...params.map(toInput)) as T[];
    } catch (err) {
      throw translate(err);
    }
  }

  /** Rows changed by INSERT, UPDATE and DELETE since the connection opened. */
  private changes(): number {
    this.changesStatement ??= this.db.prepare('SELECT total_changes() AS n');
    return Number((this.changesStatement.get() as { n: number }).n);
  }

  /** After a commit that started with `before` changes: resolves once what it did or saw is on disk. */
  private async durableAfter(before: number): Promise<void> {
    const durable = this.durable;
    if (durable && (durable.pending || this.changes() !== before)) await durable.afterCommit();
  }

  private executor(): SqlExecutor {
    return {
      dialect: 'sqlite',
      query: async <T>(sql: Statement, params: readonly SqlValue[] = []) =>
        this.run<T>(statementText(sql), params),
    };
  }

  async query<T = Record<string, unknown>>(
    statement: Statement,
    params: readonly SqlValue[] = [],
  ): Promise<T[]> {
    const sql = statementText(statement);
    if (isRead(sql)) {
      return this.reads.queue(() => {
        this.durable?.check();
        return this.run<T>(sql, params);
      });
    }
    await this.lock;
    this.reads.runNow();
    this.durable?.check();
    if (!this.durable) return this.run<T>(sql, params);
    const before = this.changes();
    const rows = this.run<T>(sql, params);
    await this.durableAfter(before);
    return rows;
  }

  /**
   * Takes the next place in the lock: `turn` resolves when every holder before it is done, and the
   * place is held until `release()`; `held` is the promise later holders wait on.
   */
  private nextInLine(): { turn: Promise<void>; held: Promise<void>; release: () => void } {
    const turn = this.lock;
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    this.lock = held;
    return { turn, held, release };
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const { turn, held, release } = this.nextInLine();
    await turn;
    this.reads.runNow();
    let result: T;
    let before = 0;
    // Open until the place is released: reads wait on the same promise as the next holder.
    this.openTransaction = held;
    try {
      this.durable?.check();
      try {
        if (this.durable) before = this.changes();
        this.db.exec('BEGIN IMMEDIATE');
      } catch (err) {
        throw translate(err);
      }
      try {
        result = await fn(this.executor());
        this.db.exec('COMMIT');
      } catch (err) {
        this.db.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.openTransaction = undefined;
      release();
    }
    // The lock is already free: the next transactions commit while this one waits for its sync.
    await this.durableAfter(before);
    return result;
  }

  /** Passes the checkpointer ran with the writes held back (the WAL started over after each). */
  get quietCheckpoints(): number {
    return this.quietPasses;
  }

  /**
   * Takes the next place in the lock, as a transaction would, so no write runs while the worker's pass
   * copies the whole WAL; the next commit then starts it over. Reads are not held back.
   */
  private async quietCheckpoint(): Promise<void> {
    const { turn, release } = this.nextInLine();
    await turn;
    try {
      if (await this.checkpointer?.checkpointNow()) this.quietPasses += 1;
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    await this.reads.settled();
    await this.lock;
    await this.durable?.settled();
    await this.checkpointer?.stop();
    await this.wal?.close();
    this.statements.clear();
    this.changesStatement = undefined;
    if (this.db.isOpen) this.db.close();
  }
}
