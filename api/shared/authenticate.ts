// Resolves the bearer token of a request to a principal, or refuses with an RFC 6750 challenge.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import { bearerChallenge, hasQueryToken, readBearer } from './bearer.ts';
import {
  type CredentialVerifier,
  isRefusal,
  type Principal,
  principalCoversOffice,
  verifyToken,
} from './identity.ts';
import { ProblemError } from './problem.ts';
import { type DigestMemo, withDigestMemo } from './token-digest.ts';

type ChallengeError = Parameters<typeof bearerChallenge>[1];

// A protected route authenticates in onRequest (authenticate-first.ts) and its handler asks again for the
// principal: the token is verified once per request. A cached verification is answered without a
// promise, so the hook and the handler of an authenticated request usually wait for nothing.
type Verification = ReturnType<typeof verifyToken>;
const verifications = new WeakMap<FastifyRequest, { token: string; result: Verification }>();

/** Each connection's last token and its digests (token-digest.ts). */
const connectionDigests = new WeakMap<object, DigestMemo>();

function digestMemo(request: FastifyRequest, token: string): DigestMemo {
  const connection = request.raw.socket;
  if (!connection) return { token };
  const known = connectionDigests.get(connection);
  if (known?.token === token) return known;
  const memo = { token };
  connectionDigests.set(connection, memo);
  return memo;
}

function verifyOnce(request: FastifyRequest, verifiers: readonly CredentialVerifier[], token: string) {
  const known = verifications.get(request);
  if (known?.token === token) return known.result;
  const result = withDigestMemo(digestMemo(request, token), () => verifyToken(verifiers, token));
  const entry = { token, result };
  verifications.set(request, entry);
  // Once settled, the handler's second look gets the answer itself rather than the promise.
  if (entry.result instanceof Promise)
    entry.result.then(
      (v) => {
        entry.result = v;
      },
      () => {},
    );
  return entry.result;
}

function refuse(baseUrl: string, detail: string, error?: ChallengeError, metadataUrl?: string): never {
  throw new ProblemError('unauthorized', detail, {
    headers: { 'www-authenticate': bearerChallenge(baseUrl, error, metadataUrl) },
  });
}

function accepted(verified: Awaited<Verification>, baseUrl: string, metadataUrl?: string): Principal {
  if (!verified) {
    const description = 'the token is invalid, expired or revoked';
    refuse(
      baseUrl,
      'The bearer token is invalid, expired or revoked.',
      { code: 'invalid_token', description },
      metadataUrl,
    );
  }
  if (isRefusal(verified)) {
    const detail = `The bearer token is not for this resource: ${verified.refused}.`;
    refuse(baseUrl, detail, { code: 'invalid_token', description: verified.refused }, metadataUrl);
  }
  return verified;
}

/**
 * The principal of the request's bearer token, or null when it sends none: now, or a promise when a
 * verifier had to wait. A token in the query string (alone or beside a header), a malformed header,
 * an unknown token or a token for another resource (the verifiers know which resource they serve) is
 * refused with 401 whatever the operation: thrown at once, or rejecting the promise.
 */
export function principalNow(
  request: FastifyRequest,
  baseUrl: string,
  verifiers: readonly CredentialVerifier[],
  metadataUrl?: string,
): Principal | null | Promise<Principal> {
  // A second look at a request whose token was already verified (and its header and query passed):
  // the settled answer, without reading the header again.
  const settled = verifications.get(request)?.result;
  if (settled !== undefined && !(settled instanceof Promise)) return accepted(settled, baseUrl, metadataUrl);
  const bearer = readBearer(request.headers.authorization);
  if (hasQueryToken(request.query)) {
    // A query token is refused even beside a valid header: RFC 6750 3.1 allows one method per request.
    const description = 'send the token as Authorization: Bearer <token>';
    const detail =
      bearer.kind === 'none'
        ? 'Tokens are accepted only in the Authorization header, never in the query string.'
        : 'A request carries its token one way only: the Authorization header, not also the query string.';
    refuse(baseUrl, detail, { code: 'invalid_request', description }, metadataUrl);
  }
  if (bearer.kind === 'none') return null;
  if (bearer.kind === 'malformed')
    refuse(baseUrl, bearer.reason, { code: 'invalid_request', description: bearer.reason }, metadataUrl);
  const verified = verifyOnce(request, verifiers, bearer.token);
  return verified instanceof Promise
    ? verified.then((v) => accepted(v, baseUrl, metadataUrl))
    : accepted(verified, baseUrl, metadataUrl);
}

function required(principal: Principal | null, baseUrl: string, metadataUrl?: string): Principal {
  if (!principal) refuse(baseUrl, 'A bearer token is required.', undefined, metadataUrl);
  return principal;
}

/** authenticate() without the promise when none is needed; a refusal is thrown at once, or rejects. */
export function authenticateNow(
  request: FastifyRequest,
  baseUrl: string,
  verifiers: readonly CredentialVerifier[],
  metadataUrl?: string,
): Principal | Promise<Principal> {
  const principal = principalNow(request, baseUrl, verifiers, metadataUrl);
  return principal instanceof Promise
    ? principal.then((p) => required(p, baseUrl, metadataUrl))
    : required(principal, baseUrl, metadataUrl);
}

/**
 * An onRequest step that verifies the request's token with `verify` (principalNow or
 * authenticateNow) and lets the request go on at once when it answered now, or when its promise
 * settles; a refusal ends the request. A callback hook: a cached verification makes no promise.
 */
export function verifyingStep(verify: (request: FastifyRequest) => unknown): onRequestHookHandler {
  return (request, _reply, done) => {
    let verified: unknown;
    try {
      verified = verify(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (verified instanceof Promise) verified.then(() => done(), done);
    else done();
  };
}

export async function authenticate(
  request: FastifyRequest,
  baseUrl: string,
  verifiers: readonly CredentialVerifier[],
  metadataUrl?: string,
): Promise<Principal> {
  return authenticateNow(request, baseUrl, verifiers, metadataUrl);
}

/** Operator credentials are bound to offices; a token for another office gets 403. */
export function requireOffice(principal: Principal, officeId: string): void {
  if (principalCoversOffice(principal, officeId)) return;
  throw new ProblemError('forbidden', `This credential is not bound to office ${officeId}.`);
}

/**
 * A valid token without the scope an operation needs gets 403 insufficient_scope, naming the scope
 * in the challenge so a client can ask for it (RFC 6750 section 3.1).
 */
export function requireScope(
  principal: Principal,
  scope: string,
  baseUrl: string,
  metadataUrl?: string,
): void {
  if (principal.scopes.includes(scope)) return;
  throw new ProblemError('insufficient_scope', `This operation needs the scope ${scope}.`, {
    headers: {
      'www-authenticate': bearerChallenge(
        baseUrl,
        { code: 'insufficient_scope', description: `the token lacks the scope ${scope}`, scope },
        metadataUrl,
      ),
    },
  });
}
