// The credential check's verdicts: refused (blocks injection), verified, or unverified (could not ask).
import { describe, expect, it } from 'vitest';
import {
  classifyStatus,
  type Fetcher,
  nextCheckAt,
  retryDelay,
  runCredentialCheck,
} from '../../../controller/reconcilers/credential-check.ts';
import type { CheckRequest } from '../../../controller/render/integration-layers.ts';

const SECRET = 's3cr3t-value';
const request: CheckRequest = {
  method: 'GET',
  url: `https://api.example.test/bot${SECRET}/me`,
  headers: { Authorization: `Bearer ${SECRET}` },
  body: undefined,
  expectStatus: [200],
  timeoutMs: 5000,
};
const answering =
  (status: number): Fetcher =>
  async () =>
    new Response(null, { status });
const throwing =
  (err: unknown): Fetcher =>
  async () => {
    throw err;
  };
const fetchFailed = (code: string) =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error(`connect ${code} https://api.example.test/bot${SECRET}`), { code }),
  });

describe('classifyStatus', () => {
  it.each([
    [200, [200], 'Verified'],
    [204, [200, 204], 'Verified'],
    [401, [200], 'Refused'],
    [403, [200], 'Refused'],
    [400, [200], 'Refused'],
    [404, [200], 'Refused'],
    [404, [200, 404], 'Verified'],
    [407, [200], 'Unverified'],
    [408, [200], 'Unverified'],
    [429, [200], 'Unverified'],
    [500, [200], 'Unverified'],
    [502, [200], 'Unverified'],
    [503, [200], 'Unverified'],
    [302, [200], 'Unverified'],
  ])('HTTP %i with expectStatus %j is %s', (status, expected, result) => {
    expect(classifyStatus(status, expected)).toBe(result);
  });
});

describe('runCredentialCheck', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused (ECONNREFUSED)'],
    ['ENOTFOUND', 'DNS lookup failed (ENOTFOUND)'],
    ['EAI_AGAIN', 'DNS lookup failed (EAI_AGAIN)'],
    ['ECONNRESET', 'connection reset (ECONNRESET)'],
    ['UND_ERR_CONNECT_TIMEOUT', 'connection timed out (UND_ERR_CONNECT_TIMEOUT)'],
    ['CERT_HAS_EXPIRED', 'TLS handshake failed (CERT_HAS_EXPIRED)'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS handshake failed (ERR_TLS_CERT_ALTNAME_INVALID)'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'TLS handshake failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)'],
    ['ESOMETHINGELSE', 'the request failed (ESOMETHINGELSE)'],
  ])('leaves the credentials unverified when the request fails with %s', async (code, words) => {
    const verdict = await runCredentialCheck(request, throwing(fetchFailed(code)));
    expect(verdict).toEqual({ result: 'Unverified', message: `api.example.test: ${words}` });
  });

  it('leaves them unverified when the provider does not answer in time', async () => {
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(await runCredentialCheck(request, throwing(timeout))).toEqual({
      result: 'Unverified',
      message: 'api.example.test: no answer within 5 s',
    });
  });

  it('refuses credentials that cannot make a request (a header with a newline)', async () => {
    const verdict = await runCredentialCheck(
      { ...request, url: 'http://127.0.0.1:9/', headers: { Authorization: 'Bearer a\nb' } },
      fetch,
    );
    expect(verdict.result).toBe('Refused');
    expect(verdict.message).not.toContain('a\nb');
  });

  it('words HTTP answers with the status and never the credential', async () => {
    for (const [status, result] of [
      [200, 'Verified'],
      [401, 'Refused'],
      [503, 'Unverified'],
    ] as const) {
      const verdict = await runCredentialCheck(request, answering(status));
      expect(verdict.result).toBe(result);
      expect(verdict.message).toContain(`HTTP ${status}`);
      expect(verdict.message).not.toContain(SECRET);
    }
    const failed = await runCredentialCheck(request, throwing(fetchFailed('ECONNREFUSED')));
    expect(failed.message).not.toContain(SECRET);
  });
});

describe('retryDelay', () => {
  it('doubles from the base on each attempt up to the cap', () => {
    const policy = { baseMs: 15_000, maxMs: 600_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => retryDelay(policy, n))).toEqual([
      15_000, 30_000, 60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000,
    ]);
  });
});

describe('nextCheckAt', () => {
  const policy = { baseMs: 1000, maxMs: 8000 };
  const stored = { message: 'm', secretVersion: '1', checkedAt: '2026-01-01T00:00:00.000Z' };
  const checkedAt = Date.parse(stored.checkedAt);
  it('is the stored retry time of an unverified check', () => {
    const retryAt = '2026-01-01T00:00:04.000Z';
    expect(nextCheckAt({ ...stored, ok: false, result: 'Unverified', attempts: 3, retryAt }, policy)).toBe(
      Date.parse(retryAt),
    );
  });
  it('is never for verified or refused credentials (until the Secret changes)', () => {
    expect(nextCheckAt({ ...stored, ok: true, result: 'Verified' }, policy)).toBeUndefined();
    expect(nextCheckAt({ ...stored, ok: false, result: 'Refused' }, policy)).toBeUndefined();
    expect(nextCheckAt({ ...stored, ok: true }, policy)).toBeUndefined();
  });
  it('looks again at a failure stored before verdicts had a result: it may have been the network', () => {
    expect(nextCheckAt({ ...stored, ok: false }, policy)).toBe(checkedAt + 1000);
  });
});
