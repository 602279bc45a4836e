// The authorization server's own keys: ID-token signing keys and cookie keys, made once per install.
import { createHash, generateKeyPairSync, type JsonWebKey, randomBytes } from 'node:crypto';
import type { ServerKeysRepo } from './server-keys-repo.ts';

export interface AuthorizationServerKeys {
  jwks: { keys: JsonWebKey[] };
  cookieKeys: string[];
}

/** RFC 7638 thumbprint, used as the key id. */
function thumbprint(jwk: JsonWebKey): string {
  const members =
    jwk.kty === 'RSA'
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
  return createHash('sha256').update(JSON.stringify(members)).digest('base64url');
}

function signingKey(type: 'rsa' | 'ec', alg: 'RS256' | 'ES256'): JsonWebKey {
  const { privateKey } =
    type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: thumbprint(jwk), alg, use: 'sig' };
}

/** RS256 first (the OpenID Connect default every client supports), then ES256. */
function newJwks(): string {
  return JSON.stringify({ keys: [signingKey('rsa', 'RS256'), signingKey('ec', 'ES256')] });
}

export async function loadAuthorizationServerKeys(
  repo: ServerKeysRepo,
  now: number,
): Promise<AuthorizationServerKeys> {
  const jwks = JSON.parse(await repo.getOrCreate('oauth-jwks', newJwks, now));
  const cookie = await repo.getOrCreate('oauth-cookie-key', () => randomBytes(32).toString('base64url'), now);
  return { jwks, cookieKeys: [cookie] };
}
