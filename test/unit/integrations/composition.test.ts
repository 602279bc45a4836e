// Composability: registry-level refusals (dangling references, cycles) and per-office resolution.
import { describe, expect, it } from 'vitest';
import {
  checkComposition,
  dependentsOf,
  recommendations,
  registryProblems,
} from '../../../integrations/registry/composition.ts';
import { searchRegistry } from '../../../integrations/registry/search.ts';

const m = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  name: id.toUpperCase(),
  description: `${id} service`,
  aliases: [] as string[],
  capabilities: [] as string[],
  provides: [] as string[],
  dependsOn: [] as string[],
  conflicts: [] as string[],
  composedWith: [] as string[],
  officeLevel: false,
  ...over,
});

const all = [
  m('openai', { provides: ['llm'], aliases: ['gpt', 'chatgpt'] }),
  m('anthropic', { provides: ['llm'], aliases: ['claude'] }),
  m('github', { provides: ['code-hosting'], composedWith: ['linear', 'gh-mcp'] }),
  m('gh-mcp', { dependsOn: ['github', 'llm'] }),
  m('linear'),
  m('jira', { conflicts: ['linear'] }),
];

describe('registryProblems', () => {
  it('finds nothing wrong in a consistent registry', () => {
    expect(registryProblems(all)).toEqual([]);
  });

  it('refuses a reference that is neither an id nor a provided capability', () => {
    expect(registryProblems([...all, m('x', { dependsOn: ['nothing-here'] })])).toEqual([
      { id: 'x', field: 'dependsOn[0]', message: expect.stringContaining('nothing-here is neither') },
    ]);
  });

  it('refuses a dependsOn cycle, also through a capability', () => {
    const looped = [
      m('a', { dependsOn: ['b'] }),
      m('b', { dependsOn: ['cap'] }),
      m('c', { provides: ['cap'], dependsOn: ['a'] }),
    ];
    const problems = registryProblems(looped);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toBe('dependency cycle: a -> b -> c -> a');
  });
});

describe('checkComposition', () => {
  const gh = all.find((x) => x.id === 'gh-mcp') ?? m('never');
  it('lists every unmet dependency with what would satisfy it', () => {
    expect(checkComposition(all, gh, [])).toEqual({
      ok: false,
      missing: [
        { ref: 'github', satisfiedBy: ['github'] },
        { ref: 'llm', satisfiedBy: ['openai', 'anthropic'] },
      ],
      conflicting: [],
    });
  });

  it('accepts a capability provided by any integration present', () => {
    expect(checkComposition(all, gh, ['github', 'anthropic']).ok).toBe(true);
  });

  it('sees a conflict declared on either side', () => {
    const jira = all.find((x) => x.id === 'jira') ?? m('never');
    const linear = all.find((x) => x.id === 'linear') ?? m('never');
    expect(checkComposition(all, jira, ['linear']).conflicting).toEqual([
      { id: 'linear', because: 'jira conflicts with linear' },
    ]);
    expect(checkComposition(all, linear, ['jira', 'github']).conflicting).toEqual([
      { id: 'jira', because: 'jira conflicts with linear' },
    ]);
  });
});

describe('dependentsOf and recommendations', () => {
  it('names the integrations that would lose their only provider', () => {
    const openai = all[0] ?? m('never');
    expect(dependentsOf(all, openai, ['openai', 'github', 'gh-mcp'])).toEqual(['gh-mcp']);
    expect(dependentsOf(all, openai, ['openai', 'anthropic', 'github', 'gh-mcp'])).toEqual([]);
  });

  it('recommends composedWith entries not configured yet', () => {
    expect(recommendations(all, ['github', 'linear'])).toEqual([
      { integrationId: 'gh-mcp', name: 'GH-MCP', recommendedBy: ['github'] },
    ]);
  });
});

describe('searchRegistry', () => {
  it('resolves aliases, exact matches first', () => {
    expect(searchRegistry(all, 'Claude').map((x) => x.id)).toEqual(['anthropic']);
    expect(searchRegistry(all, 'gpt').map((x) => x.id)).toEqual(['openai']);
    expect(searchRegistry(all, 'lin').map((x) => x.id)).toEqual(['linear']);
    expect(searchRegistry(all, 'nothing like it')).toEqual([]);
  });
});
