// The JSON serializer of every listener, with one saving: an answer object that is built once and
// served to many requests (a settled answer) is serialised once, by each route that sends it.
import type { FastifySchema, FastifySerializerCompiler } from 'fastify';
import { serializerCompiler as validatingSerializer } from 'fastify-type-provider-zod';

const settled = new WeakSet<object>();

/**
 * Marks `value` as an answer that never changes again, so a route may keep its JSON text. Every
 * part of it must be immutable from here on (it is built from remembered, replaced-not-mutated
 * values); the object itself is frozen to hold callers to that.
 */
export function settledAnswer<T extends object>(value: T): T {
  settled.add(Object.freeze(value));
  return value;
}

type Serialize = (data: unknown) => string;

/**
 * A settled answer's text is kept per route and status, so each route's own response schema still
 * checks it once. It stays a string: Node writes a string body in one write with the head, where a
 * Buffer body costs a second chunk of a writev (paired runs, docs/decisions.md).
 */
function remembering(serialize: Serialize): Serialize {
  const texts = new WeakMap<object, string>();
  return (data) => {
    if (typeof data !== 'object' || data === null || !settled.has(data)) return serialize(data);
    let known = texts.get(data);
    if (known === undefined) {
      known = serialize(data);
      texts.set(data, known);
    }
    return known;
  };
}

/** JSON.stringify, or the zod check of each route's response schema first (tests turn that on). */
export function jsonSerializerCompiler(validateResponses: boolean): FastifySerializerCompiler<FastifySchema> {
  if (!validateResponses) return () => remembering(JSON.stringify);
  return (route) => remembering(validatingSerializer(route as Parameters<typeof validatingSerializer>[0]));
}
