// The pure parts of the memory and MCP surfaces: query terms, chunking, fusion, answers, scopes.
import { describe, expect, it } from 'vitest';
import { docSections, searchSections } from '../../../api/mcp/docs-search.ts';
import { scopesNeeded } from '../../../api/mcp/tool-scopes.ts';
import { extractiveAnswer, NOTHING_FOUND } from '../../../api/memory/answer.ts';
import { chunkConversation, chunkDocument } from '../../../api/memory/chunk-text.ts';
import { cosine, reciprocalRankFusion } from '../../../api/memory/fuse.ts';
import {
  fts5Expression,
  prunedExpressions,
  queryTerms,
  tsqueryExpression,
} from '../../../api/memory/query-terms.ts';

describe('query terms', () => {
  it('keeps letters and digits only, so no search operator can be injected', () => {
    const terms = queryTerms('What is "the" NEAR(vault) * OR -combination & | !x:y');
    expect(terms).toEqual(['near', 'vault', 'combination', 'x', 'y']);
    expect(fts5Expression(terms, 'any')).toBe('"near" OR "vault" OR "combination" OR "x" OR "y"');
    expect(tsqueryExpression(['a', 'b'], 'all')).toBe('a & b');
  });

  it('falls back to stop words when the query has nothing else, and caps the terms', () => {
    expect(queryTerms('who are you')).toEqual(['who', 'are', 'you']);
    expect(queryTerms(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))).toHaveLength(16);
    expect(queryTerms('Ünïcode straße')).toEqual(['ünïcode', 'straße']);
  });
});

describe('pruned any-term expressions', () => {
  it('draws candidates from rare terms only, and still ranks with every term', () => {
    const e = prunedExpressions(['acme', 'team', 'owns'], new Set(['team', 'owns']));
    expect(e.fts5).toBe('("acme") OR (("acme") AND "team") OR (("acme") AND "owns")');
    expect(e.tsqueryFilter).toBe('acme');
    expect(e.tsqueryRank).toBe('acme | team | owns');
  });

  it('keeps the plain any-term query when every term is rare, or every one frequent', () => {
    for (const frequent of [new Set<string>(), new Set(['a', 'b'])]) {
      expect(prunedExpressions(['a', 'b'], frequent)).toEqual({
        fts5: '"a" OR "b"',
        tsqueryFilter: 'a | b',
        tsqueryRank: 'a | b',
      });
    }
  });
});

describe('chunking', () => {
  it('keeps paragraphs whole, splits long ones between sentences and never exceeds the size', () => {
    const long = 'This sentence is about forty characters. '.repeat(30);
    const chunks = chunkDocument(`Short intro.\n\n${long}\n\nOutro.`, 200);
    expect(chunks.every((c) => c.length <= 200)).toBe(true);
    expect(chunks[0]).toContain('Short intro.');
    expect(chunks.join(' ')).toContain('Outro.');
    expect(chunkDocument('x'.repeat(450), 200)).toEqual(['x'.repeat(200), 'x'.repeat(200), 'x'.repeat(50)]);
  });

  it('prefixes conversation turns with their speaker and drops empty ones', () => {
    expect(
      chunkConversation([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: '   ' },
        { role: 'assistant', content: 'hello' },
      ]),
    ).toEqual(['user: hi\nassistant: hello']);
  });
});

describe('fusion', () => {
  it('adds up an id found by several rankings', () => {
    const fused = reciprocalRankFusion([['a', 'b', 'c'], ['b']]);
    expect(fused.map((f) => f.id)).toEqual(['b', 'a', 'c']);
    expect(fused[0]?.score).toBeCloseTo(2 / 62);
    expect(cosine(new Float32Array([1, 0]), new Float32Array([1, 0]))).toBeCloseTo(1);
    expect(cosine(new Float32Array([1, 0]), new Float32Array([0, 1]))).toBeCloseTo(0);
    expect(cosine(new Float32Array([0, 0]), new Float32Array([0, 1]))).toBe(0);
  });
});

describe('extractive answers', () => {
  const blocks = [
    { id: 'mem_a', content: 'The office is in Lisbon. Parking is free.', source: 'notes' },
    { id: 'mem_b', content: 'Deployments happen on Tuesdays after standup.', source: null },
  ];

  it('quotes the matching sentences and cites only the blocks it quotes', () => {
    const a = extractiveAnswer('When do we deploy?', blocks);
    expect(a.answer).toBe('Deployments happen on Tuesdays after standup. [1]');
    expect(a.citations).toEqual([
      {
        n: 1,
        id: 'mem_b',
        source: null,
        occurredAt: null,
        createdAt: null,
        excerpt: 'Deployments happen on Tuesdays after standup.',
      },
    ]);
  });

  it('says so when nothing answers', () => {
    expect(extractiveAnswer('favourite colour?', blocks)).toEqual({ answer: NOTHING_FOUND, citations: [] });
  });
});

describe('scopes a request needs', () => {
  it('names one scope per memory tool called, batches included, and none for public calls', () => {
    const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });
    expect(scopesNeeded(call('get_pricing'))).toEqual([]);
    expect(scopesNeeded({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual([]);
    expect(scopesNeeded(call('cortex_recall'))).toEqual(['memory:read']);
    expect(scopesNeeded([call('cortex_forget'), call('cortex_ask'), call('cortex_ask')])).toEqual([
      'memory:read',
      'memory:write',
    ]);
    expect(scopesNeeded(call('toString'))).toEqual([]);
    expect(scopesNeeded('garbage')).toEqual([]);
  });
});

describe('docs search', () => {
  it('ranks sections by their headings and text', () => {
    const sections = docSections(
      'auth',
      'http://x/docs/auth.md',
      '# Auth\nintro\n## API keys\nKeys start with col_.\n## Scopes\nmemory:read lets you read keys? no.',
    );
    expect(sections.map((s) => s.heading)).toEqual(['Auth', 'API keys', 'Scopes']);
    const hits = searchSections(sections, 'api keys', 2);
    expect(hits[0]).toMatchObject({ heading: 'API keys', url: 'http://x/docs/auth.md' });
    expect(searchSections(sections, '!!!', 2)).toEqual([]);
  });
});
