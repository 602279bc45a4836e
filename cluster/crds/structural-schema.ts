// Pure: a zod schema as a Kubernetes structural OpenAPI v3 schema (what a CRD version accepts).
import { z } from 'zod';

type Json = Record<string, unknown>;

const JS_MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * CRDs reject `additionalProperties` beside `properties` (the API server prunes unknown fields
 * instead), and zod's formats carry regexes and bounds that only add noise; this strips them.
 */
function dropped(key: string, value: unknown): boolean {
  if (key === '$schema' || key === 'additionalProperties') return true;
  return (key === 'maximum' && value === JS_MAX_SAFE) || (key === 'minimum' && value === -JS_MAX_SAFE);
}

function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (!dropped(key, value)) out[key] = clean(value);
  }
  if (out.format === 'date-time') delete out.pattern;
  if (out.type === 'integer') out.format = 'int64';
  const additional = (node as Json).additionalProperties;
  if (additional && typeof additional === 'object' && !('properties' in (node as Json))) {
    out.additionalProperties = clean(additional);
  }
  return out;
}

export function structuralSchema(schema: z.ZodType): Json {
  return clean(
    z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'throw' }),
  ) as Json;
}

/** Conditions are a map keyed by `type`, so server-side apply merges them per condition. */
export function markConditionsList(status: Json): Json {
  const props = status.properties as Json | undefined;
  const conditions = props?.conditions as Json | undefined;
  if (conditions) {
    conditions['x-kubernetes-list-type'] = 'map';
    conditions['x-kubernetes-list-map-keys'] = ['type'];
  }
  return status;
}
