import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSerializerCompiler, settledAnswer } from '../../../api/shared/json-serializer.ts';

/** An answer that counts how often it is serialised. */
function counted(value: Record<string, unknown>) {
  const seen = { times: 0 };
  const answer = {
    ...value,
    toJSON() {
      seen.times += 1;
      return value;
    },
  };
  return { answer, seen };
}

const route = { schema: {}, method: 'GET', url: '/', httpStatus: '200' };

describe('jsonSerializerCompiler', () => {
  it('serialises a settled answer once per route, anything else every time', () => {
    const serialize = jsonSerializerCompiler(false)(route);
    const settled = counted({ id: 'a', n: 1 });
    settledAnswer(settled.answer);
    const plain = counted({ id: 'b', n: 2 });
    for (let i = 0; i < 3; i++) {
      expect(serialize(settled.answer)).toBe('{"id":"a","n":1}');
      expect(serialize(plain.answer)).toBe('{"id":"b","n":2}');
    }
    expect([settled.seen.times, plain.seen.times]).toEqual([1, 3]);
    // Another route keeps its own text (its schema checks the answer for itself).
    jsonSerializerCompiler(false)(route)(settled.answer);
    expect(settled.seen.times).toBe(2);
  });

  it('freezes a settled answer, so a change to it fails instead of serving stale text', () => {
    const answer = settledAnswer({ id: 'a' });
    expect(Object.isFrozen(answer)).toBe(true);
    expect(() => {
      (answer as { id: string }).id = 'b';
    }).toThrow(TypeError);
  });

  it('still checks a settled answer against the response schema when responses are validated', async () => {
    const app = Fastify();
    app.setSerializerCompiler(jsonSerializerCompiler(true));
    const good = settledAnswer({ id: 'a' });
    const bad = settledAnswer({ id: 7 });
    const schema = { response: { 200: z.object({ id: z.string() }) } };
    app.get('/good', { schema }, () => good);
    app.get('/bad', { schema }, () => bad);
    for (let i = 0; i < 2; i++) {
      const ok = await app.inject({ url: '/good' });
      expect([ok.statusCode, ok.body]).toEqual([200, '{"id":"a"}']);
      expect((await app.inject({ url: '/bad' })).statusCode).toBe(500);
    }
    await app.close();
  });
});
