// Registry manifests of OAuth integrations at a test provider, for the Connect flow tests.

/** A registry manifest of an integration; `extra` is appended (an `oauth:` section, say). */
export function oauthManifest(id: string, extra: string): string {
  return `id: ${id}
name: Acme ${id}
description: A test provider's mail, reached by OAuth.
icon: acme
category: services
capabilities: [email]
wizard: oauth
requiredSecrets: []
agentEnvVars: [${id.toUpperCase().replace(/-/g, '_')}_ACCESS_TOKEN]
version: "1.0.0"
${extra}`;
}

/** The `oauth:` section of a manifest whose provider is at `issuer`. */
export function oauthSection(id: string, issuer: string): string {
  const prefix = id.toUpperCase().replace(/-/g, '_');
  return `oauth:
  authorizationUrl: ${issuer}/auth
  tokenUrl: ${issuer}/token
  scopes: [openid, offline_access]
  authorizationParams: { prompt: consent }
  accessTokenKey: ${prefix}_ACCESS_TOKEN
  refreshTokenKey: ${prefix}_REFRESH_TOKEN
`;
}
