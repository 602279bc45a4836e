// Pure: what Colony refuses in any request before a handler runs — text holding U+0000 (PostgreSQL cannot
// store it, SQLite can; refusing it keeps both databases alike) and bodies nested too deep to walk safely.

/** The deepest a parsed body may nest objects and arrays; deeper ones are refused before any walk. */
export const MAX_BODY_DEPTH = 64;

/** The most header fields one request may carry (Node parses one more, so an excess is seen). */
export const MAX_HEADER_COUNT = 100;

export interface InputFault {
  /** Which part of the request: `params`, `querystring` or `body` (Fastify's validation contexts). */
  part: 'params' | 'querystring' | 'body';
  /** JSON Pointer to the offending value inside the part ('' for the part as a whole). */
  pointer: string;
  message: string;
}

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/**
 * A NUL in the path or query, read off the raw URL before anything is decoded: `%00` is the only way
 * to write one (Node refuses a raw NUL byte), and `%2500` decodes to the text "%00", not to a NUL.
 */
export function nulInUrl(url: string): InputFault | undefined {
  const at = url.indexOf('%00');
  if (at === -1) return undefined;
  const query = url.indexOf('?');
  if (query === -1 || at < query) return { part: 'params', pointer: '', message: NUL_MESSAGE };
  // The pointer names the field when the NUL is in its value and the name needs no decoding.
  const pair =
    url
      .slice(query + 1, at)
      .split('&')
      .pop() ?? '';
  const name = pair.includes('=') ? pair.slice(0, pair.indexOf('=')) : '%';
  return { part: 'querystring', pointer: /^[\w.-]+$/.test(name) ? `/${name}` : '', message: NUL_MESSAGE };
}

interface Pending {
  value: unknown;
  depth: number;
  parent: Pending | undefined;
  key: string;
}

/** JSON Pointer (RFC 6901) of a walked value, built only when something is wrong with it. */
function pointerOf(at: Pending | undefined): string {
  const keys: string[] = [];
  for (let p = at; p?.parent; p = p.parent) keys.push(p.key.replaceAll('~', '~0').replaceAll('/', '~1'));
  return keys.length === 0 ? '' : `/${keys.reverse().join('/')}`;
}

/** Checks one value and queues its children; the fault, if the value itself is one. */
function visit(next: Pending, stack: Pending[], maxDepth: number): InputFault | undefined {
  const { value } = next;
  if (typeof value === 'string') {
    return value.includes('\0')
      ? { part: 'body', pointer: pointerOf(next), message: NUL_MESSAGE }
      : undefined;
  }
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined;
  const depth = next.depth + 1;
  if (depth > maxDepth) {
    return { part: 'body', pointer: pointerOf(next), message: `nests deeper than ${maxDepth} levels` };
  }
  if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--)
      stack.push({ value: value[i], depth, parent: next, key: String(i) });
    return undefined;
  }
  for (const key in value) {
    if (key.includes('\0')) return { part: 'body', pointer: pointerOf(next), message: `key ${NUL_MESSAGE}` };
    stack.push({ value: (value as Record<string, unknown>)[key], depth, parent: next, key });
  }
  return undefined;
}

/**
 * The first thing wrong with a parsed body (JSON or form): a key or string holding U+0000, or objects
 * and arrays nested deeper than `maxDepth`. Iterative, so no body can overflow the stack here; binary
 * bodies (a webhook's raw bytes) are not text and are left alone.
 */
export function inspectBody(body: unknown, maxDepth = MAX_BODY_DEPTH): InputFault | undefined {
  const stack: Pending[] = [{ value: body, depth: 0, parent: undefined, key: '' }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const fault = visit(next, stack, maxDepth);
    if (fault) return fault;
  }
  return undefined;
}
