// Serialised skills pages, cached per query and invalidated whenever the stored set changes.

import type { SkillPageQuery, SkillsRepo } from '../domain/skills/skills-repo.ts';
import { setBounded } from '../shared/bounded-cache.ts';
import { type CachedJson, cacheJson } from '../shared/cached-json.ts';
import { presentSkill } from './presenters.ts';
import { encodeSkillsCursor } from './skills-cursor.ts';

const MAX_CACHED_PAGES = 512;
/** How long a fingerprint is trusted before the database is asked again. */
const STAMP_TTL_MS = 1000;

export class SkillsListing {
  private readonly repo: SkillsRepo;
  private readonly baseUrl: string;
  private readonly now: () => number;
  private stampKey = '';
  private stamp = { count: 0, newest: 0 };
  private stampCheckedAt = Number.NEGATIVE_INFINITY;
  private readonly pages = new Map<string, CachedJson>();

  constructor(repo: SkillsRepo, baseUrl: string, now: () => number = Date.now) {
    this.repo = repo;
    this.baseUrl = baseUrl;
    this.now = now;
  }

  /**
   * A fingerprint of the stored set decides whether cached bytes are still true. It is re-read at
   * most once a second, so a reindex on any replica shows everywhere within a second without a
   * database round trip on every request.
   */
  private async refreshStamp(): Promise<void> {
    this.stamp = await this.repo.stamp();
    this.stampCheckedAt = this.now();
    const key = `${this.stamp.count}:${this.stamp.newest}`;
    if (key !== this.stampKey) {
      this.pages.clear();
      this.stampKey = key;
    }
  }

  /** Answers from memory, without a promise, while the fingerprint is fresh and the page is cached. */
  page(q: SkillPageQuery): CachedJson | Promise<CachedJson> {
    const key = `${q.limit}|${q.afterName ?? ''}|${q.offset ?? ''}`;
    if (this.now() - this.stampCheckedAt < STAMP_TTL_MS) {
      const hit = this.pages.get(key);
      if (hit) return hit;
    }
    return this.load(q, key);
  }

  private async load(q: SkillPageQuery, key: string): Promise<CachedJson> {
    if (this.now() - this.stampCheckedAt >= STAMP_TTL_MS) await this.refreshStamp();
    const hit = this.pages.get(key);
    if (hit) return hit;
    const stamp = this.stamp;
    const rows = await this.repo.list({ ...q, limit: q.limit + 1 });
    const items = rows.slice(0, q.limit);
    const last = items.at(-1);
    const cached = cacheJson({
      data: items.map((s) => presentSkill(this.baseUrl, s)),
      nextCursor: rows.length > q.limit && last ? encodeSkillsCursor(last.name) : null,
      limit: q.limit,
      total: stamp.count,
    });
    setBounded(this.pages, key, cached, MAX_CACHED_PAGES);
    return cached;
  }
}
