// Serialised skills pages, cached per query and invalidated whenever the stored set changes.

import { type CachedJson, cacheJson } from '../shared/cached-json.ts';
import type { SkillPageQuery, SkillsRepo } from '../storage/skills-repo.ts';
import { presentSkill } from './presenters.ts';
import { encodeSkillsCursor } from './skills-cursor.ts';

const MAX_CACHED_PAGES = 512;

export class SkillsListing {
  private readonly repo: SkillsRepo;
  private readonly baseUrl: string;
  private stampKey = '';
  private readonly pages = new Map<string, CachedJson>();

  constructor(repo: SkillsRepo, baseUrl: string) {
    this.repo = repo;
    this.baseUrl = baseUrl;
  }

  /**
   * One cheap fingerprint query per request decides whether the cached bytes are still true, so a
   * reindex on any replica is visible on the next request everywhere.
   */
  async page(q: SkillPageQuery): Promise<CachedJson> {
    const stamp = await this.repo.stamp();
    const stampKey = `${stamp.count}:${stamp.newest}`;
    if (stampKey !== this.stampKey) {
      this.pages.clear();
      this.stampKey = stampKey;
    }
    const key = `${q.limit}|${q.afterName ?? ''}|${q.offset ?? ''}`;
    const hit = this.pages.get(key);
    if (hit) return hit;
    const rows = await this.repo.list({ ...q, limit: q.limit + 1 });
    const items = rows.slice(0, q.limit);
    const last = items.at(-1);
    const cached = cacheJson({
      data: items.map((s) => presentSkill(this.baseUrl, s)),
      nextCursor: rows.length > q.limit && last ? encodeSkillsCursor(last.name) : null,
      limit: q.limit,
      total: stamp.count,
    });
    if (this.pages.size >= MAX_CACHED_PAGES) this.pages.clear();
    this.pages.set(key, cached);
    return cached;
  }
}
