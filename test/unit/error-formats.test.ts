// errorFormat: the bytes of one error in each surface's wire format.
import { describe, expect, it } from 'vitest';
import { errorFormat, type RequestFacts } from '../../api/error-formats.ts';

const facts = (headers: RequestFacts['headers'] = {}): RequestFacts => ({
  baseUrl: 'https://colony.test',
  path: '/x',
  requestId: 'req_1',
  headers,
});

const shuttingDown = (catalogueCode: string) => ({
  code: catalogueCode,
  message: 'The server is shutting down; retry after 5 seconds.',
  headers: { 'retry-after': '5', connection: 'close' },
});

describe('errorFormat', () => {
  it('renders a problem with its type, instance, request id and headers', () => {
    const r = errorFormat('problem').render(shuttingDown('shutting_down'), facts());
    expect(r.statusCode).toBe(503);
    expect(r.headers).toMatchObject({ 'content-type': 'application/problem+json', 'retry-after': '5' });
    expect(JSON.parse(r.body)).toMatchObject({
      type: 'https://colony.test/problems/shutting_down',
      code: 'shutting_down',
      instance: '/x',
      requestId: 'req_1',
    });
  });

  it('renders ACP as its error object in the version asked for, echoing Request-Id', () => {
    const r = errorFormat('acp').render(
      { code: 'method_not_allowed', message: 'm', headers: { allow: 'POST' } },
      facts({ 'api-version': '2025-09-29', 'request-id': 'caller-1' }),
    );
    expect(r.statusCode).toBe(405);
    expect(r.headers).toMatchObject({ allow: 'POST', 'api-version': '2025-09-29', 'request-id': 'caller-1' });
    expect(JSON.parse(r.body)).toEqual({ type: 'invalid_request', code: 'method_not_allowed', message: 'm' });
  });

  it('answers an unknown API-Version in the newest snapshot', () => {
    const r = errorFormat('acp').render(
      shuttingDown('shutting_down'),
      facts({ 'api-version': '1999-01-01' }),
    );
    expect(r.headers['api-version']).toBe('2026-04-17');
    expect(JSON.parse(r.body).type).toBe('service_unavailable');
  });

  it('renders UCP as an error_response', () => {
    const r = errorFormat('ucp').render(shuttingDown('shutting_down'), facts());
    expect(r.statusCode).toBe(503);
    expect(JSON.parse(r.body)).toMatchObject({
      ucp: { status: 'error' },
      messages: [{ type: 'error', code: 'shutting_down', severity: 'recoverable' }],
    });
  });

  it('gives a browser an escaped HTML page with the page headers, and anyone else a problem', () => {
    const answer = { code: 'route_not_found', message: 'No operation GET /<script>.' };
    const page = errorFormat('page').render(answer, facts({ accept: 'text/html' }));
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).toContain('&#60;script&#62;');
    expect(page.body).not.toContain('<script>');
    const json = errorFormat('page').render(answer, facts({ accept: '*/*' }));
    expect(json.headers['content-type']).toBe('application/problem+json');
  });
});
