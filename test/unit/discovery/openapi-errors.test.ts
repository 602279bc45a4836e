// withStandardProblems: which errors each operation of a JSON API scope is given, and what it keeps.
import { describe, expect, it } from 'vitest';
import { withStandardProblems } from '../../../api/discovery/openapi-errors.ts';

const limits = { bodyLimitBytes: 1024, maxParamLength: 100 };
const ok = { 200: { description: 'OK' } };
const statuses = (op: { responses?: object }) => Object.keys(op.responses ?? {}).map(Number);

describe('withStandardProblems', () => {
  const doc = withStandardProblems(
    {
      paths: {
        '/api/v1/status': { get: { responses: ok } },
        '/api/v1/keys/{id}': {
          delete: {
            security: [{ bearer: [] }],
            parameters: [{ in: 'path' }],
            responses: { 204: { description: 'Deleted' }, 404: { description: 'No such key' } },
          },
        },
        '/api/snapshots': { post: { responses: ok } },
        '/connect/{id}': { get: { responses: ok } },
      },
    },
    limits,
  );
  interface Op {
    responses: Record<
      string,
      {
        description: string;
        headers: Record<string, { required: boolean }>;
        content: Record<string, { schema: unknown }>;
      }
    >;
  }
  const op = (path: string, method: string): Op => JSON.parse(JSON.stringify(doc.paths))[path][method];

  it('gives a public read the errors every request can meet, and no auth or body errors', () => {
    expect(statuses(op('/api/v1/status', 'get'))).toEqual([200, 400, 404, 429, 500, 503]);
  });

  it('gives a protected operation 401 with a required challenge, 403, and 414 for its path parameter', () => {
    const del = op('/api/v1/keys/{id}', 'delete');
    expect(statuses(del)).toEqual([204, 400, 401, 403, 404, 413, 414, 415, 429, 500, 503]);
    expect(del.responses[401]?.headers['WWW-Authenticate']?.required).toBe(true);
    expect(del.responses[401]?.content['application/problem+json']?.schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
  });

  it('keeps the words of a status the route declares itself', () => {
    expect(op('/api/v1/keys/{id}', 'delete').responses[404]?.description).toBe('No such key');
  });

  it('states the body limit and the rate-limit headers', () => {
    const post = op('/api/snapshots', 'post');
    expect(post.responses[413]?.description).toContain('1024 bytes');
    expect(Object.keys(post.responses[429]?.headers ?? {})).toEqual([
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
  });

  it('leaves paths outside the JSON API scopes alone', () => {
    expect(statuses(op('/connect/{id}', 'get'))).toEqual([200]);
  });
});
