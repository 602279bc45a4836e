// The PostgreSQL create batch's one parameter: the columns in BATCH_SQL's order, with the session's
// data and the response's headers nested as JSON values rather than strings.
import { describe, expect, it } from 'vitest';
import { batchParam, type ClaimedInsert } from '../../../api/commerce/batched-session-inserts.ts';

const data = { cart: [{ id: 'plan_pro', note: 'a "quoted" \\ line\nbreak' }], buyer: null };
const row = (id: string): ClaimedInsert => ({
  session: [id, 'acp', 'not_ready_for_payment', JSON.stringify(data), 1, 10, 11, 12],
  claim: { scope: 'acp:s', key: `k-${id}`, fingerprint: 'fp', now: 100, lockMs: 5, ttlMs: 50 },
  response: { statusCode: 201, headers: { 'content-type': 'application/json' }, body: `{"id":"${id}"}` },
});

describe('batchParam', () => {
  it('lists every column of every row, the JSON columns as values', () => {
    const parsed = JSON.parse(batchParam([row('cs_1'), row('cs_2')])) as unknown[][];
    expect(parsed).toHaveLength(2);
    expect(parsed[1]).toEqual([
      'cs_2',
      'acp',
      'not_ready_for_payment',
      data,
      1,
      10,
      11,
      12,
      'acp:s',
      'k-cs_2',
      'fp',
      201,
      { 'content-type': 'application/json' },
      '{"id":"cs_2"}',
      100,
      105,
      150,
    ]);
  });

  it('refuses a JSON column that is not JSON text rather than sending it', () => {
    const bad = row('cs_3');
    bad.session = [...bad.session.slice(0, 3), null, ...bad.session.slice(4)];
    expect(() => batchParam([bad])).toThrow(TypeError);
  });
});
