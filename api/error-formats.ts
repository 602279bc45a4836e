// Pure: an error answered outside any surface's own handlers, as the bytes of each surface's wire format
// (problem+json, the ACP error object, UCP's error_response, or an HTML page for a browser).
import type { IncomingHttpHeaders } from 'node:http';
import { acpErrorBody, acpErrors } from './acp/errors.ts';
import { LATEST_ACP_VERSION, parseAcpVersion } from './acp/versions.ts';
import type { ErrorCatalogue } from './shared/error-catalogue.ts';
import { renderErrorPage } from './shared/error-page.ts';
import type { FinishedResponse } from './shared/finished-response.ts';
import type { FieldError } from './shared/framework-errors.ts';
import { PAGE_HEADERS } from './shared/page-security.ts';
import { buildProblem, type ProblemCode, problemErrors } from './shared/problem.ts';
import { PROBLEM_CONTENT_TYPE } from './shared/problem-handlers.ts';
import { echoedRequestId } from './shared/request-id.ts';
import { prefersHtml, type Surface } from './shared/surface-of-path.ts';
import { UcpError, ucpErrorBody, ucpErrors } from './ucp/errors.ts';

/** One error in a catalogue's terms: its code, the message, and what it adds (fields, headers, members). */
export interface ErrorAnswer<C extends string = string> {
  code: C;
  message: string;
  fields?: FieldError[] | undefined;
  headers?: Record<string, string>;
  extensions?: Record<string, unknown>;
}

/** What a format reads from the request: the raw path, the server's request id and the headers. */
export interface RequestFacts {
  baseUrl: string;
  path: string;
  requestId: string;
  headers: IncomingHttpHeaders;
}

export interface ErrorFormat<C extends string = string> {
  catalogue: ErrorCatalogue<C>;
  render(answer: ErrorAnswer<C>, facts: RequestFacts): FinishedResponse;
}

const JSON_TYPE = 'application/json';

const problemFormat: ErrorFormat<ProblemCode> = {
  catalogue: problemErrors,
  render(a, facts) {
    const body = buildProblem(facts.baseUrl, a.code, a.message, facts.path, {
      requestId: facts.requestId,
      ...(a.fields ? { errors: a.fields } : {}),
      ...(a.extensions ? { extensions: a.extensions } : {}),
    });
    const headers = { ...a.headers, 'content-type': PROBLEM_CONTENT_TYPE };
    return { statusCode: body.status, headers, body: JSON.stringify(body) };
  },
};

/** Browsers get a page naming the problem type; every other client gets the problem itself. */
const pageFormat: ErrorFormat<ProblemCode> = {
  catalogue: problemErrors,
  render(a, facts) {
    if (!prefersHtml(facts.headers.accept)) return problemFormat.render(a, facts);
    const html = renderErrorPage(facts.baseUrl, a.code, a.message, facts.requestId);
    return {
      statusCode: problemErrors.entries[a.code].status,
      headers: { ...a.headers, ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' },
      body: html,
    };
  },
};

// A checkout protocol names its Request-Id on every answer; ACP also the snapshot it answers in.
const checkoutHeaders = (facts: RequestFacts) => ({
  'content-type': JSON_TYPE,
  'request-id': echoedRequestId(facts.headers['request-id'], facts.requestId),
});

const acpFormat: ErrorFormat<keyof typeof acpErrors.entries> = {
  catalogue: acpErrors,
  render(a, facts) {
    const asked = parseAcpVersion(facts.headers['api-version']);
    const version = typeof asked === 'object' ? LATEST_ACP_VERSION : asked;
    return {
      statusCode: acpErrors.entries[a.code].status,
      headers: { ...a.headers, ...checkoutHeaders(facts), 'api-version': version },
      body: JSON.stringify(acpErrorBody(a.code, a.message, version)),
    };
  },
};

const ucpFormat: ErrorFormat<keyof typeof ucpErrors.entries> = {
  catalogue: ucpErrors,
  render(a, facts) {
    return {
      statusCode: ucpErrors.entries[a.code].status,
      headers: { ...a.headers, ...checkoutHeaders(facts) },
      body: JSON.stringify(ucpErrorBody(new UcpError(a.code, a.message))),
    };
  },
};

const formats: Record<Surface, ErrorFormat> = {
  problem: problemFormat as ErrorFormat,
  page: pageFormat as ErrorFormat,
  acp: acpFormat as ErrorFormat,
  ucp: ucpFormat as ErrorFormat,
};

export function errorFormat(surface: Surface): ErrorFormat {
  return formats[surface];
}
