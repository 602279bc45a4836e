// Fastify's validator compiler for zod schemas, with query strings remembered once they validated.
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { setBounded } from './bounded-cache.ts';

const REMEMBERED_QUERIES = 256;

/**
 * The same query string arrives again and again on the public read API (`?limit=100`), and its
 * validation is a pure function of it, so a success is kept and the next identical query skips zod.
 * Only successes are kept (errors stay cheap to rebuild and rare); the cache is per route, bounded,
 * and each request gets its own copy of the value, so a handler cannot change another's query.
 */
export const validatorCompiler: FastifySchemaCompiler<ZodType> = (route) => {
  const validate = zodValidatorCompiler(route);
  if (route.httpPart !== 'querystring') return validate;
  const remembered = new Map<string, Record<string, unknown>>();
  const remember: FastifyValidationResult = (data: unknown) => {
    const key = queryKey(data);
    const hit = key === undefined ? undefined : remembered.get(key);
    if (hit) return { value: { ...hit } };
    const result = validate(data) as Exclude<
      ReturnType<FastifyValidationResult>,
      boolean | PromiseLike<unknown>
    >;
    if (key !== undefined && result.error === undefined && isFlatRecord(result.value)) {
      setBounded(remembered, key, result.value, REMEMBERED_QUERIES);
      return { value: { ...result.value } };
    }
    return result;
  };
  return remember;
};

const isPlainRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Only values a shallow copy fully separates are remembered (no arrays or objects inside). */
const isFlatRecord = (v: unknown): v is Record<string, unknown> =>
  isPlainRecord(v) && Object.values(v).every((x) => x === null || typeof x !== 'object');

/** An exact key for a parsed query of string values; undefined for anything else (not remembered). */
export function queryKey(data: unknown): string | undefined {
  if (!isPlainRecord(data)) return undefined;
  let key = '';
  for (const name in data) {
    const value = data[name];
    if (typeof value !== 'string') return undefined;
    // Length-prefixed, so no name or value can make two different queries share a key.
    key += `${name.length}:${name}${value.length}:${value}`;
  }
  return key;
}
