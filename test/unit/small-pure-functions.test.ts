// Pure helpers: cursors, canonical JSON, bearer parsing, SKILL.md parsing, the catalog.
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../api/domain/pricing/catalog.ts';
import { loadPriceList } from '../../api/domain/pricing/price-list.ts';
import { parseSkillFile, SkillFileError } from '../../api/domain/skills/skill-file.ts';
import { decodeSkillsCursor, encodeSkillsCursor } from '../../api/public/skills-cursor.ts';
import { bearerChallenge, readBearer } from '../../api/shared/bearer.ts';
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
