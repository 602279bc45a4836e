// Agent platforms registered for ACP order webhooks. The platform's API key is kept as its SHA-256
// only; the webhook signing secret is kept as given, since every delivery must compute with it.
import type { SqlDriver, SqlExecutor } from '../../storage/sql-driver.ts';

export interface AgentPlatform {
  id: string;
  name: string;
  /** The ACP snapshot whose webhook schema the endpoint takes (api/acp/versions.ts). */
  apiVersion: string;
  webhookUrl: string;
  createdAt: number;
  updatedAt: number;
}

/** What a delivery needs: the platform with its signing secret. Never presented. */
export interface PlatformWithSecret extends AgentPlatform {
  webhookSecret: string;
}

interface PlatformRow {
  id: string;
  name: string;
  key_hash: string;
  api_version: string;
  webhook_url: string;
  webhook_secret: string;
  created_at: number;
  updated_at: number;
}

const toPlatform = (r: PlatformRow): AgentPlatform => ({
  id: r.id,
  name: r.name,
  apiVersion: r.api_version,
  webhookUrl: r.webhook_url,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** A platform with its secret, read on any executor (a delivery, or the transaction writing an event). */
export async function platformWithSecret(
  db: SqlExecutor,
  id: string,
): Promise<PlatformWithSecret | undefined> {
  const [row] = await db.query<PlatformRow>('SELECT * FROM agent_platforms WHERE id = $1', [id]);
  return row ? { ...toPlatform(row), webhookSecret: row.webhook_secret } : undefined;
}

export interface NewPlatform {
  id: string;
  name: string;
  keyHash: string;
  apiVersion: string;
  webhookUrl: string;
  webhookSecret: string;
}

export type PlatformChange = Partial<
  Pick<NewPlatform, 'name' | 'apiVersion' | 'webhookUrl' | 'webhookSecret'>
>;

export class AgentPlatformsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Undefined when the id is taken. */
  async create(p: NewPlatform, now: number): Promise<AgentPlatform | undefined> {
    const [row] = await this.db.query<PlatformRow>(
      `INSERT INTO agent_platforms (id, name, key_hash, api_version, webhook_url, webhook_secret, created_at,
         updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (id) DO NOTHING RETURNING *`,
      [p.id, p.name, p.keyHash, p.apiVersion, p.webhookUrl, p.webhookSecret, now],
    );
    return row ? toPlatform(row) : undefined;
  }

  async list(): Promise<AgentPlatform[]> {
    const rows = await this.db.query<PlatformRow>('SELECT * FROM agent_platforms ORDER BY id');
    return rows.map(toPlatform);
  }

  async get(id: string): Promise<AgentPlatform | undefined> {
    const found = await platformWithSecret(this.db, id);
    if (!found) return undefined;
    const { webhookSecret: _secret, ...platform } = found;
    return platform;
  }

  withSecret(id: string): Promise<PlatformWithSecret | undefined> {
    return platformWithSecret(this.db, id);
  }

  /** The platform whose API key hashes to this. */
  async idByKeyHash(keyHash: string): Promise<string | undefined> {
    const [row] = await this.db.query<{ id: string }>('SELECT id FROM agent_platforms WHERE key_hash = $1', [
      keyHash,
    ]);
    return row?.id;
  }

  /** Changes the given fields; undefined when there is no such platform. */
  async update(id: string, change: PlatformChange, now: number): Promise<AgentPlatform | undefined> {
    const [row] = await this.db.query<PlatformRow>(
      `UPDATE agent_platforms SET name = COALESCE($2, name), api_version = COALESCE($3, api_version),
         webhook_url = COALESCE($4, webhook_url), webhook_secret = COALESCE($5, webhook_secret), updated_at = $6
       WHERE id = $1 RETURNING *`,
      [
        id,
        change.name ?? null,
        change.apiVersion ?? null,
        change.webhookUrl ?? null,
        change.webhookSecret ?? null,
        now,
      ],
    );
    return row ? toPlatform(row) : undefined;
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.query('DELETE FROM agent_platforms WHERE id = $1 RETURNING id', [id])).length === 1;
  }
}
