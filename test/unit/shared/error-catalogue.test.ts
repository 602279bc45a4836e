// The one error-catalogue builder and framework-error mapping behind problem+json, ACP and UCP.
import type { FastifyError, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { acpErrors } from '../../../api/acp/errors.ts';
import {
  type ErrorCatalogue,
  errorCatalogue,
  fillTemplate,
  messageFor,
} from '../../../api/shared/error-catalogue.ts';
import { allowHeader, frameworkError, noRoute } from '../../../api/shared/framework-errors.ts';
import { problemErrors } from '../../../api/shared/problem.ts';
import { DatabaseUnavailableError } from '../../../api/storage/sql-driver.ts';
import { ucpErrors } from '../../../api/ucp/errors.ts';

const catalogues: [string, ErrorCatalogue][] = [
  ['problem+json', problemErrors],
  ['ACP', acpErrors],
  ['UCP', ucpErrors],
];

const fastifyError = (props: Partial<FastifyError>): FastifyError =>
  Object.assign(new Error(props.message ?? 'boom'), props) as FastifyError;

describe('errorCatalogue', () => {
  it('answers each framework failure with the code of the same name unless told otherwise', () => {
    const built = errorCatalogue(
      {
        invalid_request: { status: 400, description: 'd' },
        bad_json: { status: 400, description: 'd' },
        payload_too_large: { status: 413, description: 'd' },
        unsupported_media_type: { status: 415, description: 'd' },
        route_not_found: { status: 404, description: 'd', message: 'No {method} {path}.' },
        method_not_allowed: { status: 405, description: 'd', message: '{path}: {allow}.' },
        uri_too_long: { status: 414, description: 'd', message: 'Too long.' },
        internal_error: { status: 500, description: 'd', message: 'Oops.', expose: false },
        request_timeout: { status: 408, description: 'd', message: 'Too slow.' },
        header_fields_too_large: { status: 431, description: 'd', message: 'Too many.' },
        service_unavailable: { status: 503, description: 'd', message: 'Retry in {seconds}s.' },
        shutting_down: { status: 503, description: 'd', message: 'Retry in {seconds}s.' },
      },
      { framework: { malformed_body: 'bad_json' } },
    );
    expect(built.framework.malformed_body).toBe('bad_json');
    expect(built.framework.internal_error).toBe('internal_error');
  });

  it('adds the fields a wire format derives from each entry', () => {
    expect(acpErrors.entries.processing_error.type).toBe('processing_error');
    expect(acpErrors.entries.not_found.type).toBe('invalid_request');
  });

  it.each(catalogues)(
    'gives %s a code for every framework failure, with a hidden message templated',
    (_n, c) => {
      for (const code of Object.values(c.framework)) expect(c.entries[code]).toBeDefined();
      const internal = c.entries[c.framework.internal_error];
      expect([internal?.expose, typeof internal?.message]).toEqual([false, 'string']);
    },
  );
});

describe('fillTemplate', () => {
  it('fills named placeholders and leaves unknown ones visible', () => {
    expect(fillTemplate('No session {id} ({status}) {gap}', { id: 'cs_1', status: 'expired' })).toBe(
      'No session cs_1 (expired) {gap}',
    );
    expect(messageFor(acpErrors, 'not_found', { id: 'cs_9' })).toBe('No checkout session with id cs_9.');
  });
});

describe('frameworkError', () => {
  it.each([
    ['a body over the limit', { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' }, 'payload_too_large'],
    [
      'a media type with no parser',
      { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' },
      'unsupported_media_type',
    ],
    ['JSON that does not parse', { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY' }, 'invalid_json'],
    [
      'a path that is not percent-encoded UTF-8',
      { statusCode: 400, code: 'FST_ERR_BAD_URL' },
      'invalid_request',
    ],
    ['a path segment over the limit', { statusCode: 414, code: 'FST_ERR_MAX_PARAM_LENGTH' }, 'uri_too_long'],
    ['a request that did not arrive in time', { statusCode: 408 }, 'request_timeout'],
    ['too many header fields', { statusCode: 431 }, 'header_fields_too_large'],
    ['anything else', {}, 'processing_error'],
  ])('maps %s onto the ACP catalogue', (_name, props, code) => {
    expect(frameworkError(acpErrors, fastifyError(props)).code).toBe(code);
  });

  it.each(catalogues)(
    'answers an unreachable database with 503 and Retry-After in %s',
    (_name, catalogue) => {
      const cause = new Error('connect ECONNREFUSED db.internal:5432');
      const mapped = frameworkError(
        catalogue,
        new DatabaseUnavailableError(cause) as unknown as FastifyError,
      );
      expect(mapped).toMatchObject({ kind: 'service_unavailable', headers: { 'retry-after': '5' } });
      expect(catalogue.entries[mapped.code]?.status).toBe(503);
      expect(mapped.message).not.toMatch(/db\.internal|ECONNREFUSED|\{/);
    },
  );

  it('hides an unexpected error behind the template and keeps framework messages', () => {
    expect(frameworkError(ucpErrors, fastifyError({ message: 'secret' })).message).toBe(
      'An unexpected error occurred.',
    );
    expect(frameworkError(problemErrors, fastifyError({ statusCode: 413, message: 'too big' })).message).toBe(
      'too big',
    );
  });

  it('lists validation failures as field errors', () => {
    const err = fastifyError({
      validation: [{ instancePath: '/limit', message: 'too big' }] as FastifyError['validation'],
      validationContext: 'querystring',
    });
    expect(frameworkError(problemErrors, err)).toMatchObject({
      code: 'invalid_request',
      message: 'query.limit: too big',
      fields: [{ location: 'query.limit', message: 'too big' }],
    });
  });
});

describe('noRoute', () => {
  it("names the method and path without the query, in each catalogue's words", () => {
    const request = { method: 'DELETE', url: '/checkout_sessions?x=1' } as FastifyRequest;
    expect(noRoute(acpErrors, request).message).toBe('No ACP operation DELETE /checkout_sessions.');
    expect(noRoute(problemErrors, request).message).toBe(
      'No operation DELETE /checkout_sessions. GET /api/v1 lists the resources.',
    );
  });

  it('answers 405 with Allow when the path serves other methods', () => {
    const request = { method: 'TRACE', url: '/ucp/v1/checkout-sessions/x' } as FastifyRequest;
    expect(noRoute(ucpErrors, request, ['PUT', 'GET'])).toEqual({
      code: 'method_not_allowed',
      message: '/ucp/v1/checkout-sessions/x does not serve TRACE; it serves GET, HEAD, PUT.',
      headers: { allow: 'GET, HEAD, PUT' },
    });
  });

  it('answers 404 when the path serves the method itself (a handler that found nothing)', () => {
    const head = { method: 'HEAD', url: '/docs/nope' } as FastifyRequest;
    expect(noRoute(problemErrors, head, ['GET']).code).toBe('route_not_found');
  });
});

describe('allowHeader', () => {
  it('lists methods in a stable order, HEAD beside GET, unknown ones last', () => {
    expect(allowHeader(['DELETE', 'PROPFIND', 'POST', 'GET'])).toBe('GET, HEAD, POST, DELETE, PROPFIND');
  });
});
