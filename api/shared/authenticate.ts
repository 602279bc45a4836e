// Resolves the bearer token of a request to a principal, or refuses with an RFC 6750 challenge.
import type { FastifyRequest } from 'fastify';
import { bearerChallenge, hasQueryToken, readBearer } from './bearer.ts';
import { type CredentialVerifier, type Principal, principalCoversOffice, verifyToken } from './identity.ts';
import { ProblemError } from './problem.ts';

function refuse(baseUrl: string, detail: string, error?: Parameters<typeof bearerChallenge>[1]): never {
  throw new ProblemError('unauthorized', detail, {
    headers: { 'www-authenticate': bearerChallenge(baseUrl, error) },
  });
}

export async function authenticate(
  request: FastifyRequest,
  baseUrl: string,
  verifiers: readonly CredentialVerifier[],
): Promise<Principal> {
  const bearer = readBearer(request.headers.authorization);
  if (bearer.kind === 'none' && hasQueryToken(request.query)) {
    refuse(baseUrl, 'Tokens are accepted only in the Authorization header, never in the query string.', {
      code: 'invalid_request',
      description: 'send the token as Authorization: Bearer <token>',
    });
  }
  if (bearer.kind === 'none') refuse(baseUrl, 'A bearer token is required.');
  if (bearer.kind === 'malformed')
    refuse(baseUrl, bearer.reason, { code: 'invalid_request', description: bearer.reason });
  const principal = bearer.kind === 'token' ? await verifyToken(verifiers, bearer.token) : null;
  if (!principal) {
    refuse(baseUrl, 'The bearer token is invalid, expired or revoked.', {
      code: 'invalid_token',
      description: 'the token is invalid, expired or revoked',
    });
  }
  return principal;
}

/** Operator credentials are bound to offices; a token for another office gets 403. */
export function requireOffice(principal: Principal, officeId: string): void {
  if (principalCoversOffice(principal, officeId)) return;
  throw new ProblemError('forbidden', `This credential is not bound to office ${officeId}.`);
}
