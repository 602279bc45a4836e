// Pure helpers: cursors, canonical JSON, bearer parsing, SKILL.md parsing, the catalog, bounded caches.
import { describe, expect, it } from 'vitest';
import { dollars } from '../../api/commerce/checkout-terms.ts';
import { buildCatalog } from '../../api/domain/pricing/catalog.ts';
import { loadPriceList } from '../../api/domain/pricing/price-list.ts';
import { parseSkillFile, SkillFileError } from '../../api/domain/skills/skill-file.ts';
import { decodeSkillsCursor, encodeSkillsCursor } from '../../api/public/skills-cursor.ts';
import { bearerChallenge, readBearer } from '../../api/shared/bearer.ts';
import { setBounded } from '../../api/shared/bounded-cache.ts';
import { canonicalJson, requestHash } from '../../api/shared/canonical-json.ts';

describe('skills cursors', () => {
  it('round-trips a name and refuses anything else', () => {
    expect(decodeSkillsCursor(encodeSkillsCursor('colony-pricing'))).toBe('colony-pricing');
    expect(decodeSkillsCursor('!!!')).toBeUndefined();
    expect(decodeSkillsCursor(Buffer.from('[]').toString('base64url'))).toBeUndefined();
    expect(decodeSkillsCursor(Buffer.from('{"v":1,"after":""}').toString('base64url'))).toBeUndefined();
  });
});

describe('canonicalJson', () => {
  it('ignores key order and undefined members but not array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: undefined } })).toBe('{"a":{"d":[2,1]},"b":1}');
    expect(requestHash({ a: 1, b: 2 })).toBe(requestHash({ b: 2, a: 1 }));
    expect(requestHash([1, 2])).not.toBe(requestHash([2, 1]));
  });

  it('keeps the exact form fingerprints were stored with', () => {
    // The form as first written: stored fingerprints compare against it, so it must never drift.
    const reference = (v: unknown): string => {
      if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
      if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, m]) => m !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, m]) => `${JSON.stringify(k)}:${reference(m)}`).join(',')}}`;
    };
    const samples: unknown[] = [
      { line_items: [{ item: { id: 'plan_pro_monthly', quantity: 2 } }], buyer: { email: 'a@b.c' } },
      { z: [1, 'two', null, true, { y: undefined, x: -0.5 }], é: 'ü', A: 'a', a: 'A', '': [] },
      [[], {}, [undefined], 'line\nbreak "quoted"', 1e21, 0],
      'plain',
      42,
      null,
    ];
    for (const sample of samples) expect(canonicalJson(sample)).toBe(reference(sample));
    expect(requestHash({ a: 1 })).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
  });
});

describe('readBearer', () => {
  it.each([
    [undefined, 'none'],
    ['', 'none'],
    ['Bearer abc.def-ghi_~+/=', 'token'],
    ['bearer abc', 'token'],
    ['Basic abc', 'malformed'],
    ['Bearer', 'malformed'],
    ['Bearer a b', 'malformed'],
    ['Bearer a"b', 'malformed'],
  ])('reads %j as %s', (header, kind) => {
    expect(readBearer(header).kind).toBe(kind);
  });

  it('builds RFC 9728 challenges and keeps quotes out of descriptions', () => {
    expect(bearerChallenge('https://x')).toBe(
      'Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"',
    );
    expect(bearerChallenge('https://x', { code: 'invalid_token', description: 'say "no"' })).toContain(
      `error_description="say 'no'"`,
    );
  });
});

describe('parseSkillFile', () => {
  it('reads the frontmatter and body', () => {
    const { frontmatter, body } = parseSkillFile(
      '---\nname: a-b\ndescription: does things\n---\n# Body\n',
      'x',
    );
    expect(frontmatter).toMatchObject({ name: 'a-b', description: 'does things' });
    expect(body).toBe('# Body\n');
  });

  it.each([
    ['# no frontmatter', 'missing YAML frontmatter'],
    ['---\nname: [\n---\n', 'not valid YAML'],
    ['---\nname: Bad_Name\ndescription: d\n---\n', 'frontmatter name'],
    ['---\nname: a--b\ndescription: d\n---\n', 'frontmatter name'],
    ['---\nname: ok\n---\n', 'frontmatter description'],
  ])('refuses %j', (text, message) => {
    expect(() => parseSkillFile(text, 'skills/x/SKILL.md')).toThrow(SkillFileError);
    expect(() => parseSkillFile(text, 'skills/x/SKILL.md')).toThrow(message);
  });
});

describe('buildCatalog', () => {
  it('sells each plan monthly and annually plus the add-ons', () => {
    const prices = loadPriceList();
    const catalog = buildCatalog(prices);
    expect(catalog).toHaveLength(prices.plans.length * 2 + prices.addOns.length);
    expect(catalog.filter((i) => i.interval === 'year').every((i) => i.id.endsWith('_annual'))).toBe(true);
  });
});

describe('dollars', () => {
  it('writes what en-US currency formatting with two decimals writes', () => {
    const usd = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const cents = [0, -0, 1, 5, 99, 100, 101, 2900, 123_456, 100_000_000, 123_456_789_012, -1, -123_456];
    for (const c of [...cents, 1234.5, -1234.5, 0.4, -0.4])
      expect(dollars(c)).toBe(`$${usd.format(c / 100)}`);
    expect(dollars(123_456)).toBe('$1,234.56');
  });
});

describe('setBounded', () => {
  it('keeps up to max entries, then starts over with the new one', () => {
    const cache = new Map<string, number>();
    for (const [i, key] of ['a', 'b', 'c'].entries()) setBounded(cache, key, i, 3);
    expect([...cache.keys()]).toEqual(['a', 'b', 'c']);
    setBounded(cache, 'd', 3, 3);
    expect([...cache.entries()]).toEqual([['d', 3]]);
  });
});
