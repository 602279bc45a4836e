// The OAuth Connect flow's storage: one-time states (stored hashed, consumed by one statement) and
// per-instance connection records (expiry, refresh status, a lease for the refreshing replica).
import { createHash } from 'node:crypto';
import type { SqlDriver } from '../storage/sql-driver.ts';

export interface ConnectState {
  officeId: string;
  accountId: string;
  integrationId: string;
  instanceLabel: string | undefined;
  codeVerifier: string;
  expiresAt: number;
}

export const connectionStatuses = ['connected', 'refresh_failed'] as const;
export type ConnectionStatus = (typeof connectionStatuses)[number];

export interface ConnectionKey {
  officeId: string;
  integrationId: string;
  instanceLabel: string | undefined;
}

export interface ConnectionRecord extends ConnectionKey {
  namespace: string;
  secretName: string;
  status: ConnectionStatus;
  message: string | null;
  expiresAt: number | null;
  connectedAt: number;
  updatedAt: number;
}

interface StateRow {
  office_id: string;
  account_id: string;
  integration_id: string;
  instance_label: string | null;
  code_verifier: string;
  expires_at: number | string;
}

interface ConnectionRow {
  office_id: string;
  integration_id: string;
  instance_label: string;
  namespace: string;
  secret_name: string;
  status: ConnectionStatus;
  message: string | null;
  expires_at: number | string | null;
  connected_at: number | string;
  updated_at: number | string;
}

const hash = (state: string) => createHash('sha256').update(state).digest('base64url');
const label = (l: string | undefined) => l ?? '';

const toConnection = (r: ConnectionRow): ConnectionRecord => ({
  officeId: r.office_id,
  integrationId: r.integration_id,
  instanceLabel: r.instance_label || undefined,
  namespace: r.namespace,
  secretName: r.secret_name,
  status: r.status,
  message: r.message,
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  connectedAt: Number(r.connected_at),
  updatedAt: Number(r.updated_at),
});

export class ConnectRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Remembers a state; only its hash is stored, so a database read cannot complete a flow. */
  async saveState(state: string, s: ConnectState, now: number): Promise<void> {
    await this.db.query('DELETE FROM connect_states WHERE expires_at < $1', [now]);
    await this.db.query(
      `INSERT INTO connect_states (state_hash, office_id, account_id, integration_id, instance_label, code_verifier, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        hash(state),
        s.officeId,
        s.accountId,
        s.integrationId,
        s.instanceLabel ?? null,
        s.codeVerifier,
        s.expiresAt,
      ],
    );
  }

  /** Takes a state exactly once: the DELETE decides between concurrent callbacks. Expired ones are refused. */
  async consumeState(state: string, now: number): Promise<ConnectState | undefined> {
    const rows = await this.db.query<StateRow>(
      `DELETE FROM connect_states WHERE state_hash = $1
       RETURNING office_id, account_id, integration_id, instance_label, code_verifier, expires_at`,
      [hash(state)],
    );
    const r = rows[0];
    if (!r || Number(r.expires_at) < now) return undefined;
    return {
      officeId: r.office_id,
      accountId: r.account_id,
      integrationId: r.integration_id,
      instanceLabel: r.instance_label ?? undefined,
      codeVerifier: r.code_verifier,
      expiresAt: Number(r.expires_at),
    };
  }

  /** Records a (re)connection: status back to connected, the lease released. */
  async connected(
    c: ConnectionKey & { namespace: string; secretName: string; expiresAt: number | null },
    now: number,
  ): Promise<void> {
    await this.db.query(
      `INSERT INTO oauth_connections (office_id, integration_id, instance_label, namespace, secret_name, status, message, expires_at, lease_until, connected_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'connected', NULL, $6, 0, $7, $7)
       ON CONFLICT (office_id, integration_id, instance_label) DO UPDATE SET
         namespace = excluded.namespace, secret_name = excluded.secret_name, status = 'connected',
         message = NULL, expires_at = excluded.expires_at, lease_until = 0,
         connected_at = excluded.connected_at, updated_at = excluded.updated_at`,
      [c.officeId, c.integrationId, label(c.instanceLabel), c.namespace, c.secretName, c.expiresAt, now],
    );
  }

  /** Connected instances whose token expires before `horizon` and that no replica is refreshing. */
  async due(horizon: number, now: number): Promise<ConnectionRecord[]> {
    const rows = await this.db.query<ConnectionRow>(
      `SELECT * FROM oauth_connections
       WHERE status = 'connected' AND expires_at IS NOT NULL AND expires_at < $1 AND lease_until < $2
       ORDER BY expires_at LIMIT 100`,
      [horizon, now],
    );
    return rows.map(toConnection);
  }

  /** Claims a refresh for `leaseMs`; false when another replica holds it or it was refreshed meanwhile. */
  async lease(k: ConnectionKey, expiresAt: number | null, now: number, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query<{ office_id: string }>(
      `UPDATE oauth_connections SET lease_until = $4
       WHERE office_id = $1 AND integration_id = $2 AND instance_label = $3 AND lease_until < $5
         AND status = 'connected' AND expires_at = $6
       RETURNING office_id`,
      [k.officeId, k.integrationId, label(k.instanceLabel), now + leaseMs, now, expiresAt],
    );
    return rows.length === 1;
  }

  async refreshed(k: ConnectionKey, expiresAt: number | null, now: number): Promise<void> {
    await this.db.query(
      `UPDATE oauth_connections SET expires_at = $4, lease_until = 0, updated_at = $5, message = NULL
       WHERE office_id = $1 AND integration_id = $2 AND instance_label = $3`,
      [k.officeId, k.integrationId, label(k.instanceLabel), expiresAt, now],
    );
  }

  async failed(k: ConnectionKey, message: string, now: number): Promise<void> {
    await this.db.query(
      `UPDATE oauth_connections SET status = 'refresh_failed', message = $4, lease_until = 0, updated_at = $5
       WHERE office_id = $1 AND integration_id = $2 AND instance_label = $3`,
      [k.officeId, k.integrationId, label(k.instanceLabel), message, now],
    );
  }

  async forOffice(officeId: string): Promise<ConnectionRecord[]> {
    const rows = await this.db.query<ConnectionRow>('SELECT * FROM oauth_connections WHERE office_id = $1', [
      officeId,
    ]);
    return rows.map(toConnection);
  }

  async remove(k: ConnectionKey): Promise<void> {
    await this.db.query(
      'DELETE FROM oauth_connections WHERE office_id = $1 AND integration_id = $2 AND instance_label = $3',
      [k.officeId, k.integrationId, label(k.instanceLabel)],
    );
  }
}
