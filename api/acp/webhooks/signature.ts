// Pure: ACP's Merchant-Signature (2026-04-17, the only snapshot that spells the scheme out; older ones
// say only "an HMAC over the raw body", and Colony signs every version this way): `t=<unix seconds>,
// v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the shared secret>`.
import { createHmac } from 'node:crypto';

export function merchantSignature(secret: string, rawBody: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
