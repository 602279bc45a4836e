// Pure: where a page may send the browser afterwards. Only same-origin relative paths are honoured.
import { hasControlCharacters } from '../accounts/account.ts';

export const DEFAULT_RETURN_TO = '/account';

/**
 * `return_to` must be a path on this origin: one leading `/`, not `//host` or `/\host` (both of
 * which browsers read as another origin), no control characters, and of sensible length.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return DEFAULT_RETURN_TO;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return DEFAULT_RETURN_TO;
  if (value.includes('\\') || hasControlCharacters(value)) return DEFAULT_RETURN_TO;
  return value;
}
