// An agent platform's API key: shown once when the platform is registered, kept as its SHA-256, and
// sent by the platform as its ACP bearer token so Colony knows whose checkout it is.
import { createHash, randomBytes } from 'node:crypto';
import { readBearer } from '../../shared/bearer.ts';
import type { AgentPlatformsRepo } from './platforms-repo.ts';

const PREFIX = 'acpk_';

export const newPlatformKey = (): string => `${PREFIX}${randomBytes(24).toString('base64url')}`;

export const hashPlatformKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * The platform a request's Authorization names. ACP agents send a bearer token whatever the merchant
 * (Colony needs none), so a missing, foreign or unknown token is an anonymous checkout, not a refusal.
 */
export async function platformOfRequest(
  platforms: AgentPlatformsRepo,
  authorization: string | undefined,
): Promise<string | undefined> {
  const bearer = readBearer(authorization);
  if (bearer.kind !== 'token' || !bearer.token.startsWith(PREFIX)) return undefined;
  return platforms.idByKeyHash(hashPlatformKey(bearer.token));
}
