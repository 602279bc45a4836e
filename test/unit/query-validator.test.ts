// The querystring validator remembers successes: same answers as zod, fewer zod runs, no shared state.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { queryKey, validatorCompiler } from '../../api/shared/query-validator.ts';

function compiled(schema: z.ZodType, httpPart = 'querystring') {
  return validatorCompiler({ schema, httpPart, method: 'GET', url: '/x' }) as (data: unknown) => {
    value?: Record<string, unknown>;
    error?: unknown;
  };
}

describe('validatorCompiler with remembered queries', () => {
  let runs = 0;
  const counted = z.strictObject({
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .transform((n) => {
        runs++;
        return n;
      })
      .optional(),
  });

  it('runs zod once per distinct valid query and answers the same value after', () => {
    runs = 0;
    const validate = compiled(counted);
    expect(validate({ limit: '100' }).value).toEqual({ limit: 100 });
    expect(validate({ limit: '100' }).value).toEqual({ limit: 100 });
    expect(runs).toBe(1);
    expect(validate({ limit: '20' }).value).toEqual({ limit: 20 });
    expect(runs).toBe(2);
  });

  it('gives every request its own copy, so one handler cannot change the next query', () => {
    const validate = compiled(counted);
    const first = validate({ limit: '7' }).value as Record<string, unknown>;
    first.limit = 99;
    expect(validate({ limit: '7' }).value).toEqual({ limit: 7 });
  });

  it('never remembers an error: invalid queries are refused every time', () => {
    const validate = compiled(counted);
    expect(validate({ limit: '0' }).error).toBeDefined();
    expect(validate({ limit: '0' }).error).toBeDefined();
    expect(validate({ limit: '1', extra: 'x' }).error).toBeDefined();
  });

  it('does not remember other parts of the request', () => {
    runs = 0;
    const validate = compiled(counted, 'params');
    validate({ limit: '5' });
    validate({ limit: '5' });
    expect(runs).toBe(2);
  });
});

describe('queryKey', () => {
  it('tells apart queries whose names and values would concatenate alike', () => {
    expect(queryKey({ a: 'b&c=d' })).not.toBe(queryKey({ a: 'b', c: 'd' }));
    expect(queryKey({ ab: 'c' })).not.toBe(queryKey({ a: 'bc' }));
  });

  it('declines what is not a flat record of strings', () => {
    expect(queryKey({ tag: ['a', 'b'] })).toBeUndefined();
    expect(queryKey(null)).toBeUndefined();
    expect(queryKey('limit=1')).toBeUndefined();
  });
});
