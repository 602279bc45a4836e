// The ACP snapshots Colony answers, and which response shape each one gets.

export const ACP_VERSIONS = ['2025-09-29', '2025-12-12', '2026-01-16', '2026-01-30', '2026-04-17'] as const;
export type AcpVersion = (typeof ACP_VERSIONS)[number];

/** An omitted API-Version means the newest snapshot (docs/decisions.md). */
export const LATEST_ACP_VERSION: AcpVersion = '2026-04-17';

/**
 * Response families: `v1` (2025-09-29) has no line item names and no continue_url; `v2` (2025-12-12,
 * 2026-01-16) adds names; `v3` (2026-01-30 on) has requires_escalation, expired, continue_url and capabilities.
 */
export type AcpShape = 'v1' | 'v2' | 'v3';

export function shapeOf(version: AcpVersion): AcpShape {
  if (version === '2025-09-29') return 'v1';
  if (version === '2025-12-12' || version === '2026-01-16') return 'v2';
  return 'v3';
}

export function parseAcpVersion(header: string | string[] | undefined): AcpVersion | { unsupported: string } {
  if (header === undefined) return LATEST_ACP_VERSION;
  const value = (Array.isArray(header) ? header.join(',') : header).trim();
  return (ACP_VERSIONS as readonly string[]).includes(value) ? (value as AcpVersion) : { unsupported: value };
}
