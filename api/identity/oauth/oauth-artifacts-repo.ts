// What the OAuth authorization server persists: grants, tokens, codes, sessions, registered clients.
import { readJson, writeJson } from '../../storage/json-column.ts';
import type { SqlDriver } from '../../storage/sql-driver.ts';

export interface OAuthArtifact {
  model: string;
  /** The artifact's id, or its SHA-256 for bearer secrets (see api/identity/oauth/storage-adapter.ts). */
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  userCode: string | null;
  uid: string | null;
  accountId: string | null;
  clientId: string | null;
  /** Epoch milliseconds; null never expires. */
  expiresAt: number | null;
  consumedAt: number | null;
}

interface Row {
  model: string;
  id: string;
  payload: unknown;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  account_id: string | null;
  client_id: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const toArtifact = (r: Row): OAuthArtifact => ({
  model: r.model,
  id: r.id,
  payload: readJson(r.payload),
  grantId: r.grant_id,
  userCode: r.user_code,
  uid: r.uid,
  accountId: r.account_id,
  clientId: r.client_id,
  expiresAt: nullableNumber(r.expires_at),
  consumedAt: nullableNumber(r.consumed_at),
});

const LIVE = '(expires_at IS NULL OR expires_at > $3)';

export class OAuthArtifactsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  async upsert(a: Omit<OAuthArtifact, 'consumedAt'>): Promise<void> {
    await this.db.query(
      `INSERT INTO oauth_artifacts (model, id, payload, grant_id, user_code, uid, account_id, client_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
         user_code = excluded.user_code, uid = excluded.uid, account_id = excluded.account_id,
         client_id = excluded.client_id, expires_at = excluded.expires_at`,
      [
        a.model,
        a.id,
        writeJson(a.payload),
        a.grantId,
        a.userCode,
        a.uid,
        a.accountId,
        a.clientId,
        a.expiresAt,
      ],
    );
  }

  async find(model: string, id: string, now: number): Promise<OAuthArtifact | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT * FROM oauth_artifacts WHERE model = $1 AND id = $2 AND ${LIVE}`,
      [model, id, now],
    );
    return row ? toArtifact(row) : undefined;
  }

  async findBy(
    model: string,
    column: 'user_code' | 'uid',
    value: string,
    now: number,
  ): Promise<OAuthArtifact | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT * FROM oauth_artifacts WHERE model = $1 AND ${column} = $2 AND ${LIVE} LIMIT 1`,
      [model, value, now],
    );
    return row ? toArtifact(row) : undefined;
  }

  /** Marks a single-use artifact used; false when it was already consumed (a replay). */
  async consume(model: string, id: string, now: number): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE oauth_artifacts SET consumed_at = $3 WHERE model = $1 AND id = $2 AND consumed_at IS NULL RETURNING id',
      [model, id, now],
    );
    return rows.length === 1;
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.db.query('DELETE FROM oauth_artifacts WHERE model = $1 AND id = $2', [model, id]);
  }

  /** Every token, code and device code issued under a grant, whatever its model. */
  async revokeByGrantId(grantId: string): Promise<number> {
    const rows = await this.db.query(
      "DELETE FROM oauth_artifacts WHERE grant_id = $1 AND model <> 'Grant' RETURNING id",
      [grantId],
    );
    return rows.length;
  }

  async listByAccount(model: string, accountId: string, now: number): Promise<OAuthArtifact[]> {
    const rows = await this.db.query<Row>(
      `SELECT * FROM oauth_artifacts WHERE model = $1 AND account_id = $2 AND ${LIVE} ORDER BY id`,
      [model, accountId, now],
    );
    return rows.map(toArtifact);
  }

  async purgeExpired(now: number): Promise<number> {
    const rows = await this.db.query(
      'DELETE FROM oauth_artifacts WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING id',
      [now],
    );
    return rows.length;
  }
}
