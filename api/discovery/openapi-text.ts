// Pure: states in /openapi.json the rule the input guards hold all text to (api/shared/input-guards.ts):
// no string and no object key may contain U+0000. Without it the document would promise to take text
// the server refuses, and a client generating requests from it would find the disagreement.

/** Any text without U+0000 (ECMA-262 syntax, as OpenAPI 3.1's JSON Schema uses). */
export const TEXT_WITHOUT_NUL = '^[^\\u0000]*$';

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const typesOf = (schema: Node): unknown[] => [schema.type].flat();

/** A string schema that leaves its text open: a pattern, enum, const or format already narrows it. */
function openText(schema: Node): boolean {
  if (!typesOf(schema).includes('string')) return false;
  return !('pattern' in schema || 'enum' in schema || 'const' in schema || 'format' in schema);
}

/** An object schema whose keys the client picks (a record) and that says nothing about them. */
function openKeys(schema: Node): boolean {
  if (!typesOf(schema).includes('object') || 'propertyNames' in schema) return false;
  return schema.additionalProperties === true || isNode(schema.additionalProperties);
}

/** Adds the rule to every schema under `paths` and `components` (a copy; the input is not changed). */
export function withTextWithoutNul<D extends Node>(doc: D): D {
  const copy = structuredClone(doc);
  const pending: unknown[] = [copy.paths, copy.components];
  // The document is Colony's own and shallow, but a loop keeps the walk free of recursion anyway.
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) {
      pending.push(...value);
      continue;
    }
    if (!isNode(value)) continue;
    if (openText(value)) value.pattern = TEXT_WITHOUT_NUL;
    if (openKeys(value)) value.propertyNames = { pattern: TEXT_WITHOUT_NUL };
    for (const child of Object.values(value)) pending.push(child);
  }
  return copy;
}
