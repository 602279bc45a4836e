// Remembers verified bearer credentials and account views for a while, and forgets all of them at
// once when a credential, grant or membership changes: here at once, on other replicas within one
// revocation check (a marker every replica reads from the database at most every checkEveryMs).

/** The shared revocation marker: an opaque value rewritten by every revocation on any replica. */
export interface RevocationMarker {
  read(): Promise<string | undefined>;
  /** Writes a fresh value and answers it. */
  renew(): Promise<string>;
}

export interface Loaded<T> {
  value: T;
  /** Epoch milliseconds after which the value must not be served (a token's own expiry). */
  expiresAt?: number | null;
}

interface Entry {
  value: unknown;
  until: number;
}

export interface CredentialCacheOptions {
  /** How long a verification is reused; 0 turns the cache off. */
  ttlMs: number;
  /** How stale this replica's view of the revocation marker may get: the cross-replica bound. */
  checkEveryMs: number;
  /** Oldest entries go first beyond this many. */
  maxEntries?: number;
  marker: RevocationMarker;
  now: () => number;
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly opts: Required<CredentialCacheOptions>;
  /** Bumped at every flush: a load that started before one must not store its answer after it. */
  private generation = 0;
  private marker: string | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | undefined;

  constructor(opts: CredentialCacheOptions) {
    this.opts = { maxEntries: 10_000, ...opts };
  }

  /**
   * The remembered value of `key` when it can be answered without waiting: the entry is fresh and the
   * revocation marker was read within checkEveryMs. Otherwise undefined, and the caller goes through
   * `through`, which reads the marker first. A hit is the same answer `through` would give, minus the
   * promises: the hot path of every authenticated request.
   */
  peek<T>(key: string): T | undefined {
    if (this.opts.ttlMs <= 0) return undefined;
    const at = this.opts.now();
    if (at - this.checkedAt >= this.opts.checkEveryMs) return undefined;
    const hit = this.entries.get(key);
    return hit && hit.until > at ? (hit.value as T) : undefined;
  }

  /**
   * The remembered value of `key`, or what `load` answers (remembered when it is not undefined).
   * Keys must never be secrets themselves: callers pass a hash of the token.
   */
  async through<T>(key: string, load: () => Promise<Loaded<T> | undefined>): Promise<T | undefined> {
    if (this.opts.ttlMs <= 0) return (await load())?.value;
    await this.checkMarker();
    const at = this.opts.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > at) return hit.value as T;
    if (hit) this.entries.delete(key);
    const generation = this.generation;
    const loaded = await load();
    if (loaded === undefined) return undefined;
    if (generation === this.generation) {
      const until = Math.min(at + this.opts.ttlMs, loaded.expiresAt ?? Number.POSITIVE_INFINITY);
      this.entries.set(key, { value: loaded.value, until });
      if (this.entries.size > this.opts.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
    return loaded.value;
  }

  /**
   * Something that decides verifications changed: forgets every entry now, and renews the shared
   * marker so other replicas forget theirs at their next check. Call after the change is stored.
   */
  async revoked(): Promise<void> {
    this.flush();
    if (this.opts.ttlMs <= 0) return;
    this.marker = await this.opts.marker.renew();
    this.checkedAt = this.opts.now();
  }

  private flush(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Reads the marker when the last read is older than checkEveryMs; concurrent callers share one read. */
  private checkMarker(): Promise<void> {
    if (this.opts.now() - this.checkedAt < this.opts.checkEveryMs) return Promise.resolve();
    this.checking ??= (async () => {
      try {
        const started = this.opts.now();
        const seen = await this.opts.marker.read();
        if (seen !== this.marker) {
          this.flush();
          this.marker = seen;
        }
        this.checkedAt = started;
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }
}
