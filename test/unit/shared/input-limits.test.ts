// What every request is refused for before a handler runs: U+0000 anywhere, bodies nested too deep.
import type { FastifyError } from 'fastify';
import { describe, expect, it } from 'vitest';
import { acpErrors } from '../../../api/acp/errors.ts';
import type { ErrorCatalogue } from '../../../api/shared/error-catalogue.ts';
import { frameworkError } from '../../../api/shared/framework-errors.ts';
import { InputRefusedError, slowClientOptions } from '../../../api/shared/input-guards.ts';
import { inspectBody, MAX_BODY_DEPTH, nulInUrl } from '../../../api/shared/input-limits.ts';
import { problemErrors } from '../../../api/shared/problem.ts';
import { ucpErrors } from '../../../api/ucp/errors.ts';

/** An array nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('nulInUrl', () => {
  it.each([
    ['/api/v1/jobs/a%00b', { part: 'params', pointer: '' }],
    ['/api/v1/skills?limit=1&q=a%00', { part: 'querystring', pointer: '/q' }],
    ['/api/v1/skills?q%00=1', { part: 'querystring', pointer: '' }],
    ['/x/%00?q=1', { part: 'params', pointer: '' }],
  ])('finds the NUL in %s', (url, expected) => {
    expect(nulInUrl(url)).toMatchObject(expected);
  });

  it.each(['/api/v1/skills?q=%2500', '/api/v1/skills?q=%0a', '/api/v1/skills/a%20b', '/'])(
    'lets %s through',
    (url) => {
      expect(nulInUrl(url)).toBeUndefined();
    },
  );
});

describe('inspectBody', () => {
  it('points at a string holding U+0000, however deep', () => {
    expect(inspectBody({ a: [{ b: 'ok' }, { c: 'x\u0000' }] })).toEqual({
      part: 'body',
      pointer: '/a/1/c',
      message: 'must not contain the NUL character (U+0000)',
    });
  });

  it('refuses a key holding U+0000 and escapes pointer characters', () => {
    expect(inspectBody({ 'a/b': { 'k\u0000': 1 } })?.pointer).toBe('/a~1b');
  });

  it('refuses a bare string body holding U+0000', () => {
    expect(inspectBody('a\u0000')).toMatchObject({ part: 'body', pointer: '' });
  });

  it(`accepts ${MAX_BODY_DEPTH} levels and refuses one more`, () => {
    expect(inspectBody(nested(MAX_BODY_DEPTH))).toBeUndefined();
    expect(inspectBody(nested(MAX_BODY_DEPTH + 1))?.message).toBe(
      `nests deeper than ${MAX_BODY_DEPTH} levels`,
    );
  });

  it('walks a body nested a hundred thousand levels without overflowing the stack', () => {
    expect(inspectBody(nested(100_000))?.message).toMatch(/deeper/);
  });

  it('leaves other text, numbers and binary bodies alone', () => {
    expect(inspectBody({ s: 'tab\tnew\nline \u0001', n: 0, t: true, z: null })).toBeUndefined();
    expect(inspectBody(Buffer.from([0, 0, 0]))).toBeUndefined();
    expect(inspectBody(undefined)).toBeUndefined();
  });
});

describe('InputRefusedError', () => {
  const catalogues: [string, ErrorCatalogue][] = [
    ['problem+json', problemErrors],
    ['ACP', acpErrors],
    ['UCP', ucpErrors],
  ];
  it.each(catalogues)(
    'maps to the invalid_request code of %s with the field it names',
    (_name, catalogue) => {
      const err = new InputRefusedError({ part: 'querystring', pointer: '/q', message: 'bad' });
      const mapped = frameworkError(catalogue, err as unknown as FastifyError);
      expect(mapped.kind).toBe('invalid_request');
      expect(mapped.code).toBe(catalogue.framework.invalid_request);
      expect(mapped.fields).toEqual([{ location: 'query.q', message: 'bad' }]);
      expect(err.message).toBe('query.q: bad');
    },
  );
});

describe('slowClientOptions', () => {
  it('bounds the whole request and the headers by no more than it', () => {
    expect(slowClientOptions(30_000)).toEqual({
      requestTimeout: 30_000,
      http: { requestTimeout: 30_000, headersTimeout: 30_000, connectionsCheckingInterval: 7_500 },
    });
    expect(slowClientOptions(600_000).http.headersTimeout).toBe(60_000);
  });

  it('turns the bound off at 0', () => {
    expect(slowClientOptions(0)).toEqual({ requestTimeout: 0, http: {} });
  });
});
