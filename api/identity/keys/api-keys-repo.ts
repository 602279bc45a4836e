// API keys: only a hash of each key is stored; the key itself is shown once, when it is created.
import { readJson, writeJson } from '../../storage/json-column.ts';
import type { SqlDriver } from '../../storage/sql-driver.ts';

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  /** The prefix and first characters, enough to recognise a key, never to use it. */
  hint: string;
  tokenHash: string;
  scopes: string[];
  /** null: every office the account is a member of, as membership changes. */
  offices: string[] | null;
  /** An agent credential's agent (bound to its one office); null for a person's own key. */
  agentName: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

interface Row {
  id: string;
  account_id: string;
  name: string;
  hint: string;
  token_hash: string;
  scopes: unknown;
  offices: unknown;
  agent_name: string | null;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  revoked_at: number | null;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const toRecord = (r: Row): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  hint: r.hint,
  tokenHash: r.token_hash,
  scopes: readJson(r.scopes),
  offices: r.offices === null || r.offices === undefined ? null : readJson(r.offices),
  agentName: r.agent_name ?? null,
  createdAt: Number(r.created_at),
  lastUsedAt: num(r.last_used_at),
  expiresAt: num(r.expires_at),
  revokedAt: num(r.revoked_at),
});

export class ApiKeysRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async create(k: ApiKeyRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO api_keys (id, account_id, name, hint, token_hash, scopes, offices, created_at, expires_at,
         agent_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        k.id,
        k.accountId,
        k.name,
        k.hint,
        k.tokenHash,
        writeJson(k.scopes),
        k.offices === null ? null : writeJson(k.offices),
        k.createdAt,
        k.expiresAt,
        k.agentName,
      ],
    );
  }

  /** The usable key with this hash: not revoked, not expired. */
  async findUsable(tokenHash: string, now: number): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT * FROM api_keys WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`,
      [tokenHash, now],
    );
    return row ? toRecord(row) : undefined;
  }

  /** Keys that still work, newest first. */
  async listActive(accountId: string, now: number): Promise<ApiKeyRecord[]> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)
       ORDER BY created_at DESC, id`,
      [accountId, now],
    );
    return rows.map(toRecord);
  }

  async countActive(accountId: string, now: number): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL
         AND (expires_at IS NULL OR expires_at > $2)`,
      [accountId, now],
    );
    return Number(row?.n ?? 0);
  }

  /** Revokes one of the account's keys; false when it has no such live key. */
  async revoke(accountId: string, id: string, now: number): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id',
      [id, accountId, now],
    );
    return rows.length === 1;
  }

  async touch(id: string, now: number): Promise<void> {
    await this.db.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [id, now]);
  }
}
