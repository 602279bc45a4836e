// Input no handler should ever see: U+0000 in a path, query or body (PostgreSQL cannot store it) and
// bodies nested thousands deep. Each surface refuses them with its own 400, on SQLite and PostgreSQL alike.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameworkAnswers } from '../../api/framework-answers.ts';
import { MAX_BODY_DEPTH } from '../../api/shared/input-limits.ts';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const TOKEN = 'bootstrap-token-for-hostile-input';
const NUL = '\u0000';
const PROBLEM = 'application/problem+json';

/** JSON text nested `depth` arrays deep around `leaf` (built as text: no recursion anywhere). */
const deepJson = (depth: number, leaf = '1') => `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`;

describe.each(storageTargets)('hostile input on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(target, {
      COLONY_BOOTSTRAP_TOKEN: TOKEN,
      COLONY_CHECKOUT_RATE_LIMIT: '10000',
    });
  });
  afterAll(() => s.close());

  const json = (method: 'POST' | 'PUT', url: string, payload: string, headers: Record<string, string> = {}) =>
    s.app.inject({ method, url, payload, headers: { 'content-type': 'application/json', ...headers } });

  /** A problem+json 400 from the guards (their message, not some later validation's). */
  function expectProblem(
    res: { statusCode: number; headers: Record<string, unknown>; json(): { detail?: string } },
    said: RegExp = /U\+0000/,
  ) {
    expect(res.statusCode).toBe(400);
    expect(String(res.headers['content-type'])).toContain(PROBLEM);
    expect(res.json()).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(res.json().detail).toMatch(said);
  }

  describe('U+0000', () => {
    it.each([
      ['a public path id', '/api/v1/jobs/job_%00'],
      ['a public query value', '/api/v1/skills?cursor=a%00b'],
      [
        'the skill document path that used to send the database error',
        '/.well-known/agent-skills/a%00/SKILL.md',
      ],
      ['a checkout page path', '/checkout/cs_%00'],
      ['the snapshots API', '/api/snapshots?office=a%00'],
    ])('in %s is a problem+json 400', async (_name, url) => {
      const res = await s.app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } });
      expectProblem(res);
      expect(res.body).not.toMatch(/0x00|UTF8|byte sequence/);
    });

    it('names the query field it found', async () => {
      const res = await s.app.inject({ url: '/api/v1/skills?limit=5&cursor=%00' });
      expect(res.json().errors).toEqual([
        { location: 'query.cursor', message: 'must not contain the NUL character (U+0000)' },
      ]);
    });

    it('in a public job body, a key included, is a problem+json 400', async () => {
      expectProblem(
        await json('POST', '/api/v1/jobs', JSON.stringify({ type: 'skills.reindex', input: { a: NUL } })),
      );
      const key = await json(
        'POST',
        '/api/v1/jobs',
        JSON.stringify({ type: 'skills.reindex', input: { [NUL]: 1 } }),
      );
      expectProblem(key);
      expect(key.json().errors[0].location).toBe('body.input');
    });

    it('in an authenticated office write is a 400 before anything else is tried', async () => {
      const res = await json('PUT', '/api/v1/offices/acme', JSON.stringify({ displayName: `a${NUL}` }), {
        authorization: `Bearer ${TOKEN}`,
      });
      expectProblem(res);
      expect(res.json().errors[0].location).toBe('body.displayName');
    });

    it('in an unauthenticated form (sign-in) is a problem+json 400', async () => {
      const res = await s.app.inject({
        method: 'POST',
        url: '/signin',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=a%00%40b.co&password=x',
      });
      expectProblem(res);
      expect(res.json().errors[0].location).toBe('body.email');
    });

    it('on ACP is an ACP invalid_request error, in the body and in the session id', async () => {
      const body = await json(
        'POST',
        '/checkout_sessions',
        JSON.stringify({ line_items: [{ item: { id: 'plan_pro_monthly' } }], buyer: { first_name: NUL } }),
      );
      expect(body.statusCode).toBe(400);
      expect(body.json()).toMatchObject({ type: 'invalid_request', code: 'invalid_request' });
      const path = await s.app.inject({ url: '/checkout_sessions/cs_%00' });
      expect(path.statusCode).toBe(400);
      expect(path.json()).toMatchObject({ type: 'invalid_request', code: 'invalid_request' });
    });

    it('on UCP is a UCP invalid_request message', async () => {
      const res = await json(
        'POST',
        '/ucp/v1/checkout-sessions',
        JSON.stringify({ line_items: [{ item: { id: NUL } }] }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().messages[0]).toMatchObject({ code: 'invalid_request' });
      const path = await s.app.inject({ url: '/ucp/v1/checkout-sessions/ucs_%00' });
      expect(path.statusCode).toBe(400);
      expect(path.json().messages[0]).toMatchObject({ code: 'invalid_request' });
    });

    it('on /mcp is a problem+json 400', async () => {
      const res = await json(
        'POST',
        '/mcp',
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: `skills${NUL}` } }),
        { accept: 'application/json, text/event-stream' },
      );
      expectProblem(res);
    });

    it('on OAuth is an OAuth invalid_request, in the query and in a registration', async () => {
      const query = await s.app.inject({ url: '/oauth/auth?client_id=%00&response_type=code' });
      expect(query.statusCode).toBe(400);
      expect(query.json()).toMatchObject({ error: 'invalid_request' });
      const registration = await json(
        'POST',
        '/oauth/register',
        JSON.stringify({
          client_name: `app${NUL}`,
          redirect_uris: ['http://127.0.0.1/cb'],
          token_endpoint_auth_method: 'none',
        }),
      );
      expect(registration.statusCode).toBe(400);
      expect(registration.json()).toMatchObject({ error: 'invalid_client_metadata' });
      const token = await s.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials&client_id=%00&client_secret=x',
      });
      expect(token.statusCode).toBeLessThan(500);
    });

    it('is still accepted as the text "%00" (%2500) and other control characters pass', async () => {
      const res = await json(
        'POST',
        '/checkout_sessions',
        JSON.stringify({
          line_items: [{ item: { id: 'plan_pro_monthly' } }],
          buyer: { first_name: 'a\tb\u0001' },
        }),
      );
      expect(res.statusCode).toBe(201);
      expect((await s.app.inject({ url: '/api/v1/jobs/job_%2500' })).statusCode).toBe(404);
    });
  });

  describe('over-long values', () => {
    const long = 'a'.repeat(5_000);
    // Over each id's own length, under Fastify's path parameter limit (longer ones answer 414).
    const id = 'a'.repeat(90);
    it.each([
      ['a snapshot id', 400, `/api/snapshots/snap_${id}`],
      ['an office member id', 400, `/api/v1/offices/acme/members/acct_${id}`],
      ['a job id', 400, `/api/v1/jobs/job_${id}`],
      ['an ACP session id', 404, `/checkout_sessions/cs_${id}`],
      ['a checkout page id', 404, `/checkout/cs_${id}`],
      ['a page size', 400, `/api/v1/skills?limit=${'0'.repeat(50)}1`],
    ])('in %s answers %i, never 5xx', async (_name, status, url) => {
      const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
      const res = await s.app.inject({ method: url.includes('/members/') ? 'DELETE' : 'GET', url, headers });
      expect(res.statusCode).toBe(status);
    });

    it('in body fields are refused with the field named', async () => {
      const key = await json(
        'POST',
        '/api/v1/jobs',
        JSON.stringify({ type: 'skills.reindex', input: { [long]: 1 } }),
      );
      expect(key.statusCode).toBe(400);
      const buyer = await json(
        'POST',
        '/checkout_sessions',
        JSON.stringify({ line_items: [{ item: { id: 'plan_pro_monthly' } }], buyer: { first_name: long } }),
      );
      expect(buyer.statusCode).toBe(400);
      expect(buyer.json()).toMatchObject({ code: 'invalid_request', param: '$.buyer.first_name' });
    });
  });

  describe(`bodies nested deeper than ${MAX_BODY_DEPTH}`, () => {
    const deep = deepJson(5_000);

    it('on ACP create with an Idempotency-Key are an ACP 400 and claim no key', async () => {
      const res = await json('POST', '/checkout_sessions', `{"line_items":${deep}}`, {
        'idempotency-key': 'deep-1',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ type: 'invalid_request', code: 'invalid_request' });
      const ok = await json(
        'POST',
        '/checkout_sessions',
        JSON.stringify({ line_items: [{ item: { id: 'plan_pro_monthly' } }] }),
        {
          'idempotency-key': 'deep-1',
        },
      );
      expect(ok.statusCode).toBe(201);
    });

    it('on an /api/v1 write are a problem+json 400', async () => {
      const res = await json('POST', '/api/v1/jobs', `{"type":"skills.reindex","input":{"a":${deep}}}`);
      expectProblem(res, /deeper/);
      expect(res.json().errors[0].message).toBe(`nests deeper than ${MAX_BODY_DEPTH} levels`);
    });

    it('on /mcp are a problem+json 400', async () => {
      const res = await json(
        'POST',
        '/mcp',
        `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${deep}}}`,
        {
          accept: 'application/json, text/event-stream',
        },
      );
      expectProblem(res, /deeper/);
    });

    it(`are accepted up to ${MAX_BODY_DEPTH} levels`, async () => {
      const res = await json(
        'POST',
        '/api/v1/jobs',
        `{"type":"skills.reindex","input":{"a":${deepJson(MAX_BODY_DEPTH - 2)}}}`,
      );
      // The job type takes no input, so its own validation answers; the guards let the body through.
      expect(res.json().errors[0]).toMatchObject({ location: 'body.input' });
      expect(res.body).not.toContain('deeper');
    });
  });
});

describe('the root error handler', () => {
  it('answers a server failure without the error’s own text', async () => {
    const app = Fastify({ logger: false });
    frameworkAnswers('http://colony.test').install(app);
    app.get('/boom', async () => {
      throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
    });
    const boom = await app.inject({ url: '/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.json()).toMatchObject({ code: 'internal_error', detail: 'An unexpected error occurred.' });
    expect(boom.body).not.toContain('0x00');
    await app.close();
  });
});

type Schema = Record<string, unknown> & { $ref?: string };
interface OpenApiDoc {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
}
type Pending = [Schema | undefined, string];

/** The schemas of every parameter and request body, each with where it is. */
function requestSchemas(doc: OpenApiDoc): Pending[] {
  const found: Pending[] = [];
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const p of (op.parameters ?? []) as Schema[])
        found.push([p.schema as Schema, `${where} ${p.in}.${p.name}`]);
      const content = ((op.requestBody as Schema | undefined)?.content ?? {}) as Record<string, Schema>;
      for (const c of Object.values(content)) found.push([c.schema as Schema, `${where} body`]);
    }
  return found;
}

/** The schemas inside one: alternatives, properties, items, and a record's values and keys. */
function childrenOf(s: Schema, where: string): Pending[] {
  const alternatives = ['anyOf', 'oneOf', 'allOf'].flatMap((k) => (s[k] ?? []) as Schema[]);
  const children: Pending[] = alternatives.map((sub) => [sub, where]);
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>))
    children.push([v, `${where}.${k}`]);
  if (s.items) children.push([s.items as Schema, `${where}[]`]);
  if (typeof s.additionalProperties === 'object') {
    children.push([s.additionalProperties as Schema, `${where}.*`]);
    children.push([(s.propertyNames as Schema | undefined) ?? { type: 'string' }, `${where} (keys)`]);
  }
  return children;
}

/** Every string a request may carry (path, query, header, body, record keys) without a maxLength. */
function unboundedStrings(doc: OpenApiDoc): string[] {
  const found: string[] = [];
  const pending = requestSchemas(doc);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [raw, where] = next;
    if (!raw) continue;
    const s = raw.$ref ? (doc.components.schemas[raw.$ref.split('/').pop() ?? ''] ?? raw) : raw;
    if (s.type === 'string' && s.maxLength === undefined && !s.enum && s.const === undefined)
      found.push(where);
    pending.push(...childrenOf(s, where));
  }
  return found;
}

describe('/openapi.json', () => {
  it('gives every string a request can carry a maxLength', async () => {
    const s = await startTestServerOn(storageTargets[0] as (typeof storageTargets)[number]);
    try {
      const doc = (await s.app.inject({ url: '/openapi.json' })).json() as OpenApiDoc;
      // The Connect page is a browser route whose id only ever selects a registry entry.
      expect(unboundedStrings(doc).filter((w) => !w.startsWith('GET /connect/'))).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
