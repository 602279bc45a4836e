// What the API server said when it refused a request, read from the client's exception.

export interface ApiFailure {
  code: number;
  /** The Status reason (Invalid, InternalError, Forbidden...), from its code when the body has none. */
  reason: string;
  message: string;
}

/** The reasons Kubernetes gives these codes (metav1.StatusReason), for bodies that carry none. */
const REASON_OF_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

function statusBody(body: unknown): { reason?: unknown; message?: unknown } {
  if (typeof body === 'object' && body !== null) return body;
  if (typeof body !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? parsed : { message: body };
  } catch {
    return { message: body };
  }
}

/**
 * Validation messages quote the value they refuse (`Invalid value: "…"`), which may be an env value
 * someone typed in; conditions and Events never carry one.
 */
const redact = (message: string) => message.replace(/(Invalid value: )"(?:[^"\\]|\\.)*"/g, '$1(redacted)');

export function apiFailure(err: unknown): ApiFailure | undefined {
  const e = err as { code?: unknown; body?: unknown };
  if (typeof e?.code !== 'number') return undefined;
  const body = statusBody(e.body);
  const reason =
    typeof body.reason === 'string' && body.reason
      ? body.reason
      : (REASON_OF_CODE[e.code] ?? `Http${e.code}`);
  const message = typeof body.message === 'string' && body.message ? body.message : `HTTP ${e.code}`;
  return { code: e.code, reason, message: redact(message).slice(0, 600) };
}

/** Failures that say nothing about the request itself: retry the same request later. */
export function isTransient(f: ApiFailure | undefined): boolean {
  return !f || f.code === 429 || f.code === 503 || f.code === 504;
}
