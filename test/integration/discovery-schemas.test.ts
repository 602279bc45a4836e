// Each discovery document against the specification that defines it, fetched over HTTP from a
// listening server on SQLite and PostgreSQL: the A2A agent card (and the official A2A client on it),
// the Agent Skills index (digests over the bytes each url serves), the OAuth metadata, /openapi.json.
import { createHash } from 'node:crypto';
import { AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  type Transport,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { MCP_BINDING_URI } from '../../api/discovery/agent-card.ts';
import { a2aAgentCard } from '../support/schemas/a2a-agent-card.ts';
import { agentSkillsIndex } from '../support/schemas/agent-skills-index.ts';
import {
  authorizationServerMetadata,
  openIdProviderMetadata,
  protectedResourceMetadata,
} from '../support/schemas/oauth-metadata.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const INDEX_PATH = '/.well-known/agent-skills/index.json';
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The front matter of a SKILL.md: the YAML between the opening `---` lines. */
function frontMatter(markdown: string): Record<string, unknown> {
  const yaml = /^---\n([\s\S]*?)\n---\n/.exec(markdown)?.[1];
  if (yaml === undefined) throw new Error('SKILL.md without front matter');
  return parseYaml(yaml) as Record<string, unknown>;
}

describe.each(storageTargets)('discovery documents on $name', (target) => {
  let s: ListeningServer;
  beforeAll(async () => {
    s = await startListeningServer(target);
  });
  afterAll(() => s.close());

  const get = (path: string | URL, init?: RequestInit) => fetch(new URL(path, s.baseUrl), init);
  async function getJson(path: string): Promise<unknown> {
    const res = await get(path);
    expect(res.status, path).toBe(200);
    expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
    return res.json();
  }
  const publishedSkills = async () =>
    ((await getJson('/api/v1/skills?limit=100')) as { data: { name: string; description: string }[] }).data;

  describe('/.well-known/agent-card.json', () => {
    it('is an A2A 1.0 AgentCard whose OAuth flow is the authorization server’s', async () => {
      const card = a2aAgentCard.parse(await getJson('/.well-known/agent-card.json'));
      expect(card.supportedInterfaces).toEqual([
        { url: `${s.baseUrl}/mcp`, protocolBinding: MCP_BINDING_URI, protocolVersion: '1.0' },
      ]);
      const oauth = card.securitySchemes?.oauth2;
      if (!oauth || !('oauth2SecurityScheme' in oauth)) throw new Error('no OAuth 2.0 scheme');
      const { flows, oauth2MetadataUrl } = oauth.oauth2SecurityScheme;
      if (!('authorizationCode' in flows)) throw new Error('no authorization code flow');
      const as = authorizationServerMetadata.parse(await getJson(new URL(oauth2MetadataUrl ?? '').pathname));
      expect(flows.authorizationCode).toMatchObject({
        authorizationUrl: as.authorization_endpoint,
        tokenUrl: as.token_endpoint,
        pkceRequired: true,
      });
      const mcp = protectedResourceMetadata.parse(await getJson('/.well-known/oauth-protected-resource/mcp'));
      expect(Object.keys(flows.authorizationCode.scopes).sort()).toEqual(
        [...(mcp.scopes_supported ?? [])].sort(),
      );
      expect(card.skills.map((k) => k.id)).toEqual((await publishedSkills()).map((k) => k.name));
      expect(card.skills.length).toBeGreaterThanOrEqual(8);
    });

    it('is resolved by the official A2A client without losing a field', async () => {
      const raw = await getJson('/.well-known/agent-card.json');
      const resolved = await new DefaultAgentCardResolver().resolve(s.baseUrl);
      expect(AgentCard.toJSON(resolved)).toEqual(raw);
    });

    it('gives the official client factory a client over the MCP binding, and no A2A transport', async () => {
      const created: string[] = [];
      const mcpBinding: TransportFactory = {
        protocolName: MCP_BINDING_URI,
        async create(url) {
          created.push(url);
          return { protocolName: MCP_BINDING_URI, protocolVersion: '1.0' } as Transport;
        },
      };
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [mcpBinding] }),
      );
      const client = await factory.createFromUrl(s.baseUrl);
      expect(created).toEqual([`${s.baseUrl}/mcp`]);
      expect((await client.getAgentCard()).name).toBe('Colony');
      // Colony speaks MCP, not A2A's task protocol: the SDK's own JSON-RPC and REST bindings find nothing.
      await expect(new ClientFactory().createFromUrl(s.baseUrl)).rejects.toThrow(/No compatible transport/);
    });
  });

  describe(INDEX_PATH, () => {
    it('follows Agent Skills discovery v0.2.0 and lists every published skill', async () => {
      const res = await get(INDEX_PATH);
      expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
      const raw = (await res.json()) as Record<string, unknown>;
      const index = agentSkillsIndex.parse(raw);
      // v0.1 fields are gone: v0.2.0 replaced `version` with `$schema` and dropped `files`.
      expect(raw).not.toHaveProperty('version');
      for (const entry of raw.skills as object[]) expect(entry).not.toHaveProperty('files');
      expect(index.skills.map((k) => [k.name, k.description])).toEqual(
        (await publishedSkills()).map((k) => [k.name, k.description]),
      );
      expect(index.skills.length).toBeGreaterThanOrEqual(8);
    });

    it('carries for each skill the SHA-256 of exactly the bytes its url serves', async () => {
      const indexUrl = new URL(INDEX_PATH, s.baseUrl);
      const index = agentSkillsIndex.parse(await (await fetch(indexUrl)).json());
      for (const skill of index.skills) {
        expect(skill.type).toBe('skill-md');
        const url = new URL(skill.url, indexUrl); // RFC 3986 resolution against the index, as clients do
        expect(url.origin).toBe(indexUrl.origin);
        const res = await fetch(url);
        expect(res.status, skill.url).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
        const bytes = new Uint8Array(await res.arrayBuffer());
        expect(sha256(bytes), skill.name).toBe(skill.digest);
        const meta = frontMatter(new TextDecoder().decode(bytes));
        expect(meta).toMatchObject({ name: skill.name, description: skill.description });
      }
    });

    it('answers HEAD on the index and on each artifact, and 404 for a skill that does not exist', async () => {
      const index = agentSkillsIndex.parse(await getJson(INDEX_PATH));
      for (const url of [INDEX_PATH, ...index.skills.map((k) => k.url)]) {
        const head = await get(url, { method: 'HEAD' });
        expect(head.status, url).toBe(200);
        expect(head.headers.get('content-type')).toMatch(/^(application\/json|text\/markdown)/);
        expect(await head.text()).toBe('');
      }
      expect((await get('/.well-known/agent-skills/nope/SKILL.md')).status).toBe(404);
    });
  });

  describe('OAuth metadata', () => {
    it('is RFC 8414 metadata for the issuer it is published under, the same as OpenID discovery', async () => {
      const raw = await getJson('/.well-known/oauth-authorization-server');
      const as = authorizationServerMetadata.parse(raw);
      expect(as.issuer).toBe(s.baseUrl); // RFC 8414 §3.3
      expect(as.code_challenge_methods_supported).toContain('S256'); // what MCP clients insist on
      const oidc = await getJson('/.well-known/openid-configuration');
      openIdProviderMetadata.parse(oidc);
      expect(oidc).toEqual(raw);
    });

    it.each([
      ['/.well-known/oauth-protected-resource', ''],
      ['/.well-known/oauth-protected-resource/mcp', '/mcp'],
    ])('%s is RFC 9728 metadata for the resource its path names', async (path, resourcePath) => {
      const meta = protectedResourceMetadata.parse(await getJson(path));
      expect(meta.resource).toBe(`${s.baseUrl}${resourcePath}`); // RFC 9728 §3.3
      expect(meta.authorization_servers?.length).toBeGreaterThan(0);
      for (const issuer of meta.authorization_servers ?? []) {
        const as = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
        expect(((await as.json()) as { issuer: string }).issuer).toBe(issuer);
      }
    });
  });

  describe('/openapi.json', () => {
    it('is a valid OpenAPI 3.1 document that lists the index operation GET /api/v1', async () => {
      const doc = (await getJson('/openapi.json')) as { openapi: string; paths: Record<string, object> };
      expect(doc.openapi).toMatch(/^3\.1\./);
      const result = await new Validator().validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(doc.paths['/api/v1']).toHaveProperty('get');
      expect((await get('/api/v1')).status).toBe(200);
    });
  });
});
