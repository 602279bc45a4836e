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

// A shared commit closes at MAX_MEMBERS writes or MAX_OPEN_MS after its BEGIN, whichever comes first,
// even with more writes waiting: the first member's answer waits for the commit.
const MAX_MEMBERS = 32;
const MAX_OPEN_MS = 2;

/** One BEGIN … COMMIT shared by concurrent writes, each a savepoint of its own within it. */
interface SharedCommit {
  members: number;
  /** total_changes() at BEGIN: whether the commit wrote anything its members must wait to sync. */
  before: number;
  openedAt: number;
  /** Settles at COMMIT: rejects when the commit, and so every member's changes, was lost. */
  committed: PromiseWithResolvers<void>;
  /** Resolves at COMMIT or ROLLBACK, either way: reads never run inside the transaction. */
  ended: Promise<void>;
  /** Set at COMMIT when there is something to wait for: resolves once the commit is on disk. */
  synced?: Promise<void>;
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
 * Writes that queue behind one another share a transaction (shared commits): each transaction runs
 * in a savepoint of its own, so one that fails takes back only its own changes, and the COMMIT comes
 * when nobody waits to join. A commit's cost is mostly the pages it writes to the WAL, and writes
 * that land together touch the same pages. Writes queue together because the reads before them
 * (an idempotency lookup, a claim check) are answered together at the end of a turn.
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
  /** The transaction open on the connection, shared by the writes that ran in it so far. */
  private shared: SharedCommit | undefined;
  /** Writes that have taken a place in the lock and not started: the open commit waits for them. */
  private waitingMembers = 0;
  private commits = 0;
  private writes = 0;
  private changesStatement: ReturnType<DatabaseSync['prepare']> | undefined;
  /**
   * Reads wait only for a transaction that is open. One queued behind it runs the waiting reads
   * before its BEGIN, and a quiet checkpoint (which holds the lock but opens no transaction) holds
   * back writes alone.
   */
  private readonly reads = new ReadBatch(() => this.shared?.ended);

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
    // One statement is atomic by itself: a failed one undoes only its own changes, so it needs no
    // savepoint of its own inside a shared commit.
    return this.member(() => this.run<T>(sql, params), false);
  }

  /**
   * Takes the next place in the lock: `turn` resolves when every holder before it is done, and the
   * place is held until `release()`.
   */
  private nextInLine(): { turn: Promise<void>; release: () => void } {
    const turn = this.lock;
    const { promise: held, resolve: release } = Promise.withResolvers<void>();
    this.lock = held;
    return { turn, release };
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.member(() => fn(this.executor()), true);
  }

  /**
   * Runs one write (a transaction or a single statement) as a member of the shared commit: it joins
   * the one open, or begins one. Every member settles only after that commit and its sync, so a
   * member is never answered on rows that a failed commit took back. Without a savepoint, `work` is
   * one synchronous statement (query()).
   */
  private async member<T>(work: () => T | Promise<T>, savepoint: boolean): Promise<T> {
    const { turn, release } = this.nextInLine();
    this.waitingMembers += 1;
    await turn;
    this.waitingMembers -= 1;
    // A single statement that nobody waits to follow runs in SQLite's own autocommit: none can join
    // a statement that runs synchronously to its end.
    if (!savepoint && !this.shared && this.waitingMembers === 0) return this.alone(work as () => T, release);
    let shared: SharedCommit;
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      shared = this.shared ?? this.beginShared();
      shared.members += 1;
      if (savepoint) this.db.exec('SAVEPOINT member');
    } catch (err) {
      if (this.shared && this.shouldCommit(this.shared)) this.commitShared();
      release();
      throw translate(err);
    }
    try {
      const value = await work();
      if (savepoint) this.db.exec('RELEASE member');
      outcome = { ok: true, value };
    } catch (error) {
      outcome = { ok: false, error };
      this.undoMember(shared, savepoint, error);
    } finally {
      if (this.shared === shared && this.shouldCommit(shared)) this.commitShared();
      release();
    }
    await shared.committed.promise;
    // The lock is already free: later members commit while this one waits for its sync.
    await shared.synced;
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async alone<T>(statement: () => T, release: () => void): Promise<T> {
    let rows: T;
    let synced: Promise<void> | undefined;
    try {
      const before = this.startWrite();
      rows = statement();
      this.counted(1);
      synced = this.syncAfter(before);
    } finally {
      release();
    }
    await synced;
    return rows;
  }

  /**
   * Before a write that starts a transaction or runs alone: the reads asked for before it run first
   * (they see the rows as they were), and a failed sync refuses it. Returns total_changes() for
   * syncAfter().
   */
  private startWrite(): number {
    this.reads.runNow();
    this.durable?.check();
    return this.durable ? this.changes() : 0;
  }

  private counted(writes: number): void {
    this.commits += 1;
    this.writes += writes;
  }

  /**
   * Called right after a commit that started at `before` changes: what it did, or what it may have
   * seen of an earlier commit still waiting for its sync, must be on disk before it is answered. A
   * commit that changed nothing after synced ones (an idle poller's UPDATE) waits for nothing.
   */
  private syncAfter(before: number): Promise<void> | undefined {
    const durable = this.durable;
    if (durable && (durable.pending || this.changes() !== before)) return durable.afterCommit();
    return undefined;
  }

  private beginShared(): SharedCommit {
    const before = this.startWrite();
    this.db.exec('BEGIN IMMEDIATE');
    const committed = Promise.withResolvers<void>();
    // Awaited by every member; the rejection is theirs to see, not an unhandled one meanwhile.
    const ended = committed.promise.catch(() => {});
    const shared: SharedCommit = { members: 0, before, openedAt: performance.now(), committed, ended };
    this.shared = shared;
    return shared;
  }

  /** Takes back a failed member's own changes; the shared commit goes on with the others'. */
  private undoMember(shared: SharedCommit, savepoint: boolean, error: unknown): void {
    if (this.db.isTransaction) {
      if (savepoint) this.db.exec('ROLLBACK TO member; RELEASE member');
      return;
    }
    // SQLite rolled the whole transaction back itself (a full disk, an I/O error): every member's
    // changes are gone, so none of them may be answered as if written.
    this.endShared(shared, translate(error));
  }

  /**
   * Commits when nobody waits to join, when reads are waiting, or when the commit has grown: a
   * member's answer and every read wait for it.
   */
  private shouldCommit(shared: SharedCommit): boolean {
    return (
      this.waitingMembers === 0 ||
      this.reads.waiting ||
      shared.members >= MAX_MEMBERS ||
      performance.now() - shared.openedAt >= MAX_OPEN_MS
    );
  }

  private commitShared(): void {
    const shared = this.shared;
    if (!shared) return;
    try {
      this.db.exec('COMMIT');
      this.counted(shared.members);
      shared.synced = this.syncAfter(shared.before);
      this.endShared(shared);
    } catch (err) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.endShared(shared, translate(err));
    }
  }

  private endShared(shared: SharedCommit, failure?: unknown): void {
    if (this.shared === shared) this.shared = undefined;
    if (failure === undefined) shared.committed.resolve();
    else shared.committed.reject(failure);
  }

  /** Commits run, and the writes (transactions and single statements) they carried. */
  get commitCounts(): { commits: number; writes: number } {
    return { commits: this.commits, writes: this.writes };
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
    // Members ahead of it may have left their commit open for one queued behind the pass.
    this.commitShared();
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
