// A byte-stable JSON form (sorted keys) so that equal request bodies hash equally.
import { hash } from 'node:crypto';

// Stored fingerprints are compared across versions, so this form must never change. Written with
// plain loops: it runs on every idempotent request, and entries/filter/sort/map/join allocated a
// fresh array at each step (a visible share of a checkout create's CPU).
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i === 0 ? '' : ','}${canonicalJson(value[i])}`;
    return `${out}]`;
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  // The default sort compares UTF-16 code units, the order this form has always used.
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(member)}`;
    first = false;
  }
  return `${out}}`;
}

export function requestHash(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}
