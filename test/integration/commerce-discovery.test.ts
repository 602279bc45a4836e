// /.well-known/acp.json (valid against the 2026-04-17 DiscoveryResponse schema), the policy pages and the
// commerce doc the UCP payment handler points at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACP_VERSIONS } from '../../api/acp/versions.ts';
import { defaultConformanceDir, loadConformance } from '../conformance/schema-validators.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const schemas = loadConformance(defaultConformanceDir());
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

describe('commerce discovery', () => {
  it('serves /.well-known/acp.json in the 2026-04-17 shape', async () => {
    const res = await s.app.inject({ url: '/.well-known/acp.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    const doc = res.json();
    expect(schemas.acp['2026-04-17'].discovery?.(doc)).toEqual([]);
    expect(doc.protocol).toMatchObject({
      name: 'acp',
      version: '2026-04-17',
      supported_versions: [...ACP_VERSIONS],
    });
    expect(doc.api_base_url).toBe('http://colony.test');
    expect(doc.capabilities.services).toEqual(['checkout']);
  });

  it('serves the policy pages checkout links point at, and docs/commerce.md', async () => {
    for (const url of ['/legal/terms', '/legal/privacy']) {
      const res = await s.app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
    }
    expect((await s.app.inject({ url: '/legal/terms' })).body).toContain('14-day free trial');
    const doc = await s.app.inject({ url: '/docs/commerce.md' });
    expect(doc.statusCode).toBe(200);
    expect(doc.body).toContain('ai.colony.hosted_billing');
  });

  it('points agents at both checkout protocols from /llms.txt', async () => {
    const llms = (await s.app.inject({ url: '/llms.txt' })).body;
    expect(llms).toContain('(http://colony.test/.well-known/acp.json)');
    expect(llms).toContain('(http://colony.test/.well-known/ucp)');
    expect(llms).toContain('(http://colony.test/docs/commerce.md)');
  });

  it('keeps checkout operations out of the public OpenAPI description', async () => {
    const paths = Object.keys((await s.app.inject({ url: '/openapi.json' })).json().paths);
    expect(paths.some((p) => p.startsWith('/checkout_sessions') || p.startsWith('/ucp'))).toBe(false);
  });
});
