// Discovery documents: OpenAPI validity and coverage, llms.txt, /signup, problem pages. The agent card,
// the skills index and the OAuth metadata are checked against their specs in discovery-schemas.test.ts.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

const get = (url: string) => s.app.inject({ method: 'GET', url });

describe('/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = (await get('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes all nine operations with their parameters and problem responses', async () => {
    const doc = (await get('/openapi.json')).json();
    const ops = [
      ['get', '/api/v1'],
      ['get', '/api/v1/status'],
      ['get', '/api/v1/pricing'],
      ['get', '/api/v1/skills'],
      ['get', '/api/v1/commerce/catalog'],
      ['post', '/api/v1/jobs'],
      ['get', '/api/v1/jobs/{id}'],
      ['post', '/api/v1/batch'],
      ['get', '/api/v1/me'],
    ] as const;
    for (const [method, path] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.operationId).toBeTruthy();
      const problem = op.responses['404']?.content?.['application/problem+json']?.schema;
      expect(problem, `${method} ${path} 404`).toBeDefined();
    }
    const params = (path: string) =>
      doc.paths[path].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    expect(params('/api/v1/skills')).toEqual(
      expect.arrayContaining(['query:limit', 'query:cursor', 'query:offset']),
    );
    expect(params('/api/v1/pricing')).toContain('query:plan');
    expect(params('/api/v1/status')).toContain('query:service');
    expect(params('/api/v1/jobs/{id}')).toContain('path:id');
    const create = doc.paths['/api/v1/jobs'].post;
    expect(create.parameters.map((p: { name: string }) => p.name)).toContain('idempotency-key');
    expect(create.responses['422']).toBeDefined();
    expect(doc.paths['/api/v1/me'].get.responses['401']).toBeDefined();
    // Each path as clients call it: the index is GET /api/v1, which the server answers.
    expect(Object.keys(doc.paths).filter((p) => p.endsWith('/'))).toEqual([]);
    expect((await get('/api/v1')).statusCode).toBe(200);
    expect(doc.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'instance']),
    );
    expect(doc.paths['/healthz']).toBeUndefined();
  });
});

describe('/llms.txt and /llms-full.txt', () => {
  it('follows the llms.txt layout: title, summary, then sections of links', async () => {
    const res = await get('/llms.txt');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const lines = res.body.split('\n');
    expect(lines[0]).toBe('# Colony');
    expect(lines[2]).toMatch(/^> /);
    expect(res.body).toMatch(/^## API$/m);
    expect(res.body).toMatch(/^## Optional$/m);
    const links = [...res.body.matchAll(/^- \[[^\]]+\]\(([^)]+)\)/gm)].map((m) => m[1] ?? '');
    expect(links.length).toBeGreaterThan(15);
    for (const link of links) {
      expect(link.startsWith(TEST_BASE_URL)).toBe(true);
      const answer = await get(link.replace(TEST_BASE_URL, ''));
      expect(answer.statusCode, link).toBe(200);
    }
  });

  it('inlines the docs and every skill in llms-full.txt', async () => {
    const full = (await get('/llms-full.txt')).body;
    expect(full).toContain('# Errors');
    expect(full).toContain('# How agents authenticate to Colony');
    const skills = (await get('/api/v1/skills?limit=100')).json().data;
    for (const skill of skills) expect(full).toContain(`name: ${skill.name}`);
    expect(full).not.toContain('{base_url}');
  });

  it('serves /auth.md as Markdown with this server’s address', async () => {
    const res = await get('/auth.md');
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.body).toContain(`${TEST_BASE_URL}/.well-known/oauth-protected-resource`);
  });
});

describe('/signup', () => {
  it('is an HTML page that lists every plan with its price and the trial', async () => {
    const res = await get('/signup');
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/^<!doctype html>/);
    for (const slug of ['starter', 'pro', 'team']) expect(res.body).toContain(`id="plan-${slug}"`);
    expect(res.body).toContain('$99');
    expect(res.body).toContain('14-day free trial');
  });
});

describe('/problems/{code}', () => {
  it('resolves a problem type URI to a page', async () => {
    const res = await get('/problems/rate_limited');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('429');
    expect((await get('/problems/not_a_code')).statusCode).toBe(404);
  });
});
