// The registry as the memory tools see it: connectable sources and their Connect links.
import { describe, expect, it } from 'vitest';
import { connectableSources, connectLink } from '../../../api/connect/connectable.ts';
import { loadRegistry } from '../../../integrations/registry/load-registry.ts';

const registry = loadRegistry(new URL('../../../integrations', import.meta.url).pathname);

describe('connectable sources', () => {
  it('are the OAuth integrations and the declared memory sources of the registry', () => {
    const sources = connectableSources(registry.list());
    expect(sources.map((s) => s.integrationId)).toContain('google-workspace');
    for (const s of sources) {
      const m = registry.get(s.integrationId);
      expect(m?.wizard === 'oauth' || m?.capabilities.includes('memory-source')).toBe(true);
    }
    expect(sources.map((s) => s.integrationId)).not.toContain('openai');
  });

  it('link to the browser entry of the Connect flow', () => {
    expect(connectLink('https://colony.example', 'google-workspace', 'acme')).toBe(
      'https://colony.example/connect/google-workspace?office=acme',
    );
    expect(connectLink('https://colony.example', 'github', 'acme', 'oss')).toBe(
      'https://colony.example/connect/github?office=acme&instance=oss',
    );
  });
});
