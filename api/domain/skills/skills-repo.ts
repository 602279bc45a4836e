// Published skills: replaced as a set from the repository's skills/ folder, read in name order.
import { readJson, writeJson } from '../../storage/json-column.ts';
import type { SqlDriver } from '../../storage/sql-driver.ts';

export interface SkillRecord {
  name: string;
  description: string;
  /** The raw SKILL.md text as published. */
  content: string;
  /** `sha256:<hex>` of the SKILL.md bytes. */
  digest: string;
  metadata: Record<string, unknown>;
  updatedAt: number;
}

export interface SkillSyncResult {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  total: number;
}

export interface SkillPageQuery {
  limit: number;
  /** Keyset pagination: names strictly after this one. */
  afterName?: string;
  offset?: number;
}

export type SkillSummary = Omit<SkillRecord, 'content'>;

interface SkillRow {
  name: string;
  description: string;
  content?: string;
  digest: string;
  metadata: unknown;
  updated_at: number;
}

const toSummary = (r: SkillRow): SkillSummary => ({
  name: r.name,
  description: r.description,
  digest: r.digest,
  metadata: readJson(r.metadata),
  updatedAt: Number(r.updated_at),
});

const toRecord = (r: SkillRow): SkillRecord => ({ ...toSummary(r), content: r.content ?? '' });

export class SkillsRepo {
  private readonly db: SqlDriver;

  constructor(db: SqlDriver) {
    this.db = db;
  }

  /** Makes the stored set equal to `skills`, touching only rows whose digest changed. */
  async replaceAll(skills: readonly Omit<SkillRecord, 'updatedAt'>[], now: number): Promise<SkillSyncResult> {
    return this.db.transaction(async (tx) => {
      const existing = await tx.query<{ name: string; digest: string }>('SELECT name, digest FROM skills');
      const before = new Map(existing.map((r) => [r.name, r.digest]));
      const result: SkillSyncResult = {
        added: 0,
        updated: 0,
        removed: 0,
        unchanged: 0,
        total: skills.length,
      };
      for (const s of skills) {
        const old = before.get(s.name);
        before.delete(s.name);
        if (old === s.digest) {
          result.unchanged++;
          continue;
        }
        await tx.query(
          `INSERT INTO skills (name, description, content, digest, metadata, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (name) DO UPDATE SET description = excluded.description, content = excluded.content,
             digest = excluded.digest, metadata = excluded.metadata, updated_at = excluded.updated_at`,
          [s.name, s.description, s.content, s.digest, writeJson(s.metadata), now],
        );
        if (old === undefined) result.added++;
        else result.updated++;
      }
      for (const gone of before.keys()) {
        await tx.query('DELETE FROM skills WHERE name = $1', [gone]);
        result.removed++;
      }
      return result;
    });
  }

  /** One page of summaries (no content) in name order: byte order, identical on both databases. */
  async list(q: SkillPageQuery): Promise<SkillSummary[]> {
    const cols = 'name, description, digest, metadata, updated_at';
    const order = this.db.dialect === 'postgres' ? 'ORDER BY name COLLATE "C"' : 'ORDER BY name';
    const after = this.db.dialect === 'postgres' ? 'name COLLATE "C" > $1' : 'name > $1';
    const rows =
      q.afterName !== undefined
        ? await this.db.query<SkillRow>(`SELECT ${cols} FROM skills WHERE ${after} ${order} LIMIT $2`, [
            q.afterName,
            q.limit,
          ])
        : await this.db.query<SkillRow>(`SELECT ${cols} FROM skills ${order} LIMIT $1 OFFSET $2`, [
            q.limit,
            q.offset ?? 0,
          ]);
    return rows.map(toSummary);
  }

  /** Every skill with its content, in name order. */
  async all(): Promise<SkillRecord[]> {
    const order = this.db.dialect === 'postgres' ? 'ORDER BY name COLLATE "C"' : 'ORDER BY name';
    const rows = await this.db.query<SkillRow>(
      `SELECT name, description, content, digest, metadata, updated_at FROM skills ${order}`,
    );
    return rows.map(toRecord);
  }

  /**
   * A cheap fingerprint of the whole set: any add or update raises the newest updated_at and any
   * removal lowers the count, so caches keyed by it never serve a stale page.
   */
  async stamp(): Promise<{ count: number; newest: number }> {
    const [row] = await this.db.query<{ n: number; m: number | null }>(
      'SELECT COUNT(*) AS n, MAX(updated_at) AS m FROM skills',
    );
    return { count: Number(row?.n ?? 0), newest: Number(row?.m ?? 0) };
  }

  async get(name: string): Promise<SkillRecord | undefined> {
    const [row] = await this.db.query<SkillRow>(
      'SELECT name, description, content, digest, metadata, updated_at FROM skills WHERE name = $1',
      [name],
    );
    return row ? toRecord(row) : undefined;
  }
}
