// Pure: an API key record as the API and pages show it (never its hash).
import type { ApiKeyRecord } from './api-keys-repo.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentKey(k: ApiKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    hint: k.hint,
    scopes: k.scopes,
    offices: k.offices,
    createdAt: new Date(k.createdAt).toISOString(),
    lastUsedAt: iso(k.lastUsedAt),
    expiresAt: iso(k.expiresAt),
  };
}
