// Parses a checkout request body with its zod schema; the first bad field is named as a JSONPath, and the
// protocol turns that into its own invalid-request error.
import type { z } from 'zod';

/** `$.line_items[0].quantity` from a zod issue path. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : `${acc}.${String(p)}`),
    '$',
  );
}

/** An absent body parses as `{}`, so a bare POST reads as one with no fields. */
export function parseCheckoutBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  invalid: (message: string, at: string) => Error,
): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = jsonPath(issue?.path ?? []);
  throw invalid(`${at}: ${issue?.message ?? 'invalid value'}`, at);
}
