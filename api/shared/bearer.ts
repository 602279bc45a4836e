// RFC 6750 bearer credentials: read only from the Authorization header, challenged per RFC 9728.

export type BearerResult =
  | { kind: 'none' }
  | { kind: 'token'; token: string }
  | { kind: 'malformed'; reason: string };

const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function readBearer(authorization: string | undefined): BearerResult {
  if (authorization === undefined || authorization === '') return { kind: 'none' };
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) return { kind: 'malformed', reason: 'Authorization must be "Bearer <token>"' };
  if (!TOKEN68.test(match[1]))
    return { kind: 'malformed', reason: 'the bearer token has characters RFC 6750 does not allow' };
  return { kind: 'token', token: match[1] };
}

/** True when a caller tried to pass a token where RFC 6750 allows it but Colony never accepts it. */
export function hasQueryToken(query: unknown): boolean {
  return typeof query === 'object' && query !== null && 'access_token' in query;
}

export function protectedResourceMetadataUrl(baseUrl: string): string {
  return `${baseUrl}/.well-known/oauth-protected-resource`;
}

/** `metadataUrl` names another resource's RFC 9728 document (the MCP endpoint's path form). */
export function bearerChallenge(
  baseUrl: string,
  error?: {
    code: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
    description: string;
    scope?: string;
  },
  metadataUrl = protectedResourceMetadataUrl(baseUrl),
): string {
  const parts = [`resource_metadata="${metadataUrl}"`];
  if (error) {
    parts.push(`error="${error.code}"`, `error_description="${error.description.replaceAll('"', "'")}"`);
    if (error.scope) parts.push(`scope="${error.scope}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}
