// Runs the credentialCheck layer's request and words the verdict; never puts a credential in it.
// Three verdicts: the provider accepted the credentials, refused them, or could not be asked.
import type { IntegrationStatus } from '../../cluster/crds/integration-types.ts';
import type { CheckRequest } from '../render/integration-layers.ts';

export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

export type CheckResult = 'Verified' | 'Refused' | 'Unverified';
export interface CheckVerdict {
  result: CheckResult;
  message: string;
}

/**
 * A 4xx is the provider's answer about this request, hence about the credentials (a bad key is a
 * 400 at Google, a 401 or 403 elsewhere). 407 comes from a proxy on the way, 408 and 429 say "not
 * now": those, 5xx, redirects and anything else unexpected leave the credentials unverified.
 */
export function classifyStatus(status: number, expected: readonly number[]): CheckResult {
  if (expected.includes(status)) return 'Verified';
  if (status >= 400 && status < 500 && ![407, 408, 429].includes(status)) return 'Refused';
  return 'Unverified';
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|HOSTNAME_MISMATCH)/;
const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'DNS lookup failed',
  EAI_AGAIN: 'DNS lookup failed',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_SOCKET: 'connection closed',
};

/** The error code of a failed fetch (Node puts it on the cause); only codes, never messages. */
function errorCode(err: unknown): string | undefined {
  const cause = (err as { cause?: { code?: unknown } }).cause;
  const code = cause?.code ?? (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{2,64}$/.test(code) ? code : undefined;
}

/** Why a request threw, in words; error messages can quote the URL, which may hold a credential. */
function failure(err: unknown, timeoutMs: number): CheckVerdict {
  const name = (err as Error)?.name;
  if (name === 'TimeoutError')
    return { result: 'Unverified', message: `no answer within ${timeoutMs / 1000} s` };
  // Node's fetch rejects a request it cannot build (a header value with a newline) with a TypeError
  // that has no cause: the saved values are at fault, not the network.
  if (err instanceof TypeError && err.cause === undefined)
    return { result: 'Refused', message: 'the credentials do not make a valid HTTP request' };
  const code = errorCode(err);
  if (!code) return { result: 'Unverified', message: 'the request failed' };
  const words = NETWORK_WORDS[code] ?? (TLS_CODE.test(code) ? 'TLS handshake failed' : 'the request failed');
  return { result: 'Unverified', message: `${words} (${code})` };
}

export async function runCredentialCheck(req: CheckRequest, fetcher: Fetcher = fetch): Promise<CheckVerdict> {
  const host = new URL(req.url).host;
  try {
    const res = await fetcher(req.url, {
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      redirect: 'manual',
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    await res.body?.cancel();
    const result = classifyStatus(res.status, req.expectStatus);
    if (result === 'Verified')
      return { result, message: `${host} accepted the credentials (HTTP ${res.status})` };
    return {
      result,
      message: `${host} answered HTTP ${res.status}; expected ${req.expectStatus.join(' or ')}`,
    };
  } catch (err) {
    const { result, message } = failure(err, req.timeoutMs);
    return { result, message: `${host}: ${message}` };
  }
}

export interface RetryPolicy {
  /** Wait after the first check that could not reach a verdict; it doubles on each further one. */
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 15_000, maxMs: 600_000 };

/** How long to wait after the n-th (1-based) consecutive unverified check of one Secret version. */
export function retryDelay(policy: RetryPolicy, attempts: number): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}

type StoredCheck = NonNullable<IntegrationStatus['credentialCheck']>;

/** A stored verdict's result; verdicts stored before `result` existed have only `ok`. */
export const resultOf = (c: StoredCheck): CheckResult => c.result ?? (c.ok ? 'Verified' : 'Refused');

/**
 * When a stored verdict is to be checked again (epoch ms), or undefined: Verified and Refused stand
 * until the Secret changes. A verdict without `result` may be a network failure from before the
 * distinction existed, so it is looked at again once, after the base wait.
 */
export function nextCheckAt(c: StoredCheck | undefined, policy: RetryPolicy): number | undefined {
  if (!c) return undefined;
  if (c.result === 'Unverified')
    return c.retryAt ? Date.parse(c.retryAt) : Date.parse(c.checkedAt) + policy.baseMs;
  if (c.result === undefined && !c.ok) return Date.parse(c.checkedAt) + policy.baseMs;
  return undefined;
}
