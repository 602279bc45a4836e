// The OAuth clients the operator registered with each provider, read from COLONY_OAUTH_CLIENTS.
import { z } from 'zod';
import { ConfigError } from '../config.ts';

export interface OAuthClient {
  clientId: string;
  /** Absent for public clients (PKCE only). */
  clientSecret: string | undefined;
}

const clientsSchema = z.record(
  z.string().min(1),
  z.strictObject({ clientId: z.string().min(1), clientSecret: z.string().min(1).optional() }),
);

/**
 * `{"<integration id>": {"clientId": "...", "clientSecret": "..."}}`. A bad value is a ConfigError
 * naming the variable and the path; the value itself is never repeated (it holds secrets).
 */
export function parseOAuthClients(raw: string | undefined): ReadonlyMap<string, OAuthClient> {
  if (!raw) return new Map();
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ConfigError('invalid configuration:\n  COLONY_OAUTH_CLIENTS: is not valid JSON');
  }
  const parsed = clientsSchema.safeParse(json);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `  COLONY_OAUTH_CLIENTS${i.path.map((p) => `.${String(p)}`).join('')}: ${i.message}`,
    );
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return new Map(
    Object.entries(parsed.data).map(([id, c]) => [
      id,
      { clientId: c.clientId, clientSecret: c.clientSecret },
    ]),
  );
}
