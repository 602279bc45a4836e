// Digests as the Agent Skills discovery index (RFC v0.2.0) defines them: SHA-256 of an artifact's bytes.
import { createHash } from 'node:crypto';

export function fileDigest(bytes: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
