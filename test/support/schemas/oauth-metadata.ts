// OAuth discovery metadata written from the RFCs' text: RFC 8414 (authorization server), OpenID
// Connect Discovery 1.0 §3 (its superset) and RFC 9728 (protected resource). Open objects: both
// RFCs let a server add parameters and tell clients to ignore the ones they do not know.
import { z } from 'zod';

const url = z.url();
const strings = z.array(z.string().min(1));
/** `none` MUST NOT be listed among signing algorithms for client or resource authentication. */
const signingAlgs = strings.refine((algs) => !algs.includes('none'), '"none" is not allowed here');
/** An issuer or resource identifier: a URL without query or fragment (RFC 8414 §2, RFC 9728 §2). */
const identifier = url.refine((u) => {
  const parsed = new URL(u);
  return parsed.search === '' && parsed.hash === '' && !u.includes('#');
}, 'no query or fragment');

/** RFC 8414 §2. authorization_endpoint is required whenever a grant uses it; Colony's do. */
export const authorizationServerMetadata = z.object({
  issuer: identifier,
  authorization_endpoint: url,
  token_endpoint: url,
  jwks_uri: url.optional(),
  registration_endpoint: url.optional(),
  scopes_supported: strings.optional(),
  response_types_supported: strings.min(1),
  response_modes_supported: strings.optional(),
  grant_types_supported: strings.optional(),
  token_endpoint_auth_methods_supported: strings.optional(),
  token_endpoint_auth_signing_alg_values_supported: signingAlgs.optional(),
  service_documentation: url.optional(),
  ui_locales_supported: strings.optional(),
  op_policy_uri: url.optional(),
  op_tos_uri: url.optional(),
  revocation_endpoint: url.optional(),
  revocation_endpoint_auth_methods_supported: strings.optional(),
  revocation_endpoint_auth_signing_alg_values_supported: signingAlgs.optional(),
  introspection_endpoint: url.optional(),
  introspection_endpoint_auth_methods_supported: strings.optional(),
  introspection_endpoint_auth_signing_alg_values_supported: signingAlgs.optional(),
  code_challenge_methods_supported: strings.optional(),
});

/** OpenID Connect Discovery 1.0 §3: jwks_uri, subject types and ID token algorithms are REQUIRED too. */
export const openIdProviderMetadata = authorizationServerMetadata.extend({
  jwks_uri: url,
  userinfo_endpoint: url.optional(),
  subject_types_supported: z.array(z.enum(['public', 'pairwise'])).min(1),
  id_token_signing_alg_values_supported: strings.refine((a) => a.includes('RS256'), 'RS256 MUST be included'),
  // The server MUST support the openid scope.
  scopes_supported: strings.refine((s) => s.includes('openid'), 'openid MUST be listed').optional(),
  claims_parameter_supported: z.boolean().optional(),
  request_parameter_supported: z.boolean().optional(),
  request_uri_parameter_supported: z.boolean().optional(),
  require_request_uri_registration: z.boolean().optional(),
});

/** RFC 9728 §2. */
export const protectedResourceMetadata = z.object({
  resource: identifier,
  authorization_servers: z.array(identifier).optional(),
  jwks_uri: url.optional(),
  scopes_supported: strings.optional(),
  bearer_methods_supported: z.array(z.enum(['header', 'body', 'query'])).optional(),
  resource_signing_alg_values_supported: signingAlgs.optional(),
  resource_name: z.string().optional(),
  resource_documentation: url.optional(),
  resource_policy_uri: url.optional(),
  resource_tos_uri: url.optional(),
  tls_client_certificate_bound_access_tokens: z.boolean().optional(),
  authorization_details_types_supported: strings.optional(),
  dpop_signing_alg_values_supported: strings.optional(),
  dpop_bound_access_tokens_required: z.boolean().optional(),
});
