import { describe, expect, it } from 'vitest';
import { WriteBatcher } from '../../../api/storage/write-batcher.ts';

/** A runner whose batches finish only when the test says so, recording what each held. */
function gatedRunner(fail: (item: string) => boolean = () => false) {
  const batches: string[][] = [];
  const gates: PromiseWithResolvers<void>[] = [];
  const run = async (items: readonly string[]) => {
    batches.push([...items]);
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    await gate.promise;
    if (items.some(fail)) throw new Error(`bad item in ${items.join(',')}`);
    return items.map((i) => `done ${i}`);
  };
  const openNext = async () => {
    for (let tries = 0; tries < 100 && gates.length === 0; tries++) await Promise.resolve();
    gates.shift()?.resolve();
    await new Promise((r) => setImmediate(r));
  };
  return { run, batches, openNext };
}

describe('WriteBatcher', () => {
  it('sends a lone write at once, then gathers the writes that arrive while it runs', async () => {
    const r = gatedRunner();
    const b = new WriteBatcher(r.run, { maxInFlight: 1, maxBatch: 10 });
    const first = b.submit('a');
    const rest = ['b', 'c', 'd'].map((x) => b.submit(x));
    expect(r.batches).toEqual([['a']]);
    await r.openNext();
    expect(await first).toBe('done a');
    expect(r.batches).toEqual([['a'], ['b', 'c', 'd']]);
    await r.openNext();
    expect(await Promise.all(rest)).toEqual(['done b', 'done c', 'done d']);
  });

  it('runs up to maxInFlight batches at once and bounds each by maxBatch', async () => {
    const r = gatedRunner();
    const b = new WriteBatcher(r.run, { maxInFlight: 2, maxBatch: 2 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((x) => b.submit(x));
    expect(r.batches).toEqual([['a'], ['b']]);
    await r.openNext();
    expect(r.batches).toEqual([['a'], ['b'], ['c', 'd']]);
    await r.openNext();
    await r.openNext();
    await r.openNext();
    expect(r.batches).toEqual([['a'], ['b'], ['c', 'd'], ['e']]);
    expect(await Promise.all(all)).toEqual(['done a', 'done b', 'done c', 'done d', 'done e']);
  });

  it('never puts two items with one key in the same batch', async () => {
    const r = gatedRunner();
    const b = new WriteBatcher(r.run, { maxInFlight: 1, maxBatch: 10, keyOf: (x: string) => x[0] ?? '' });
    const all = ['x0', 'y1', 'x2', 'z3', 'x4'].map((x) => b.submit(x));
    await r.openNext();
    expect(r.batches).toEqual([['x0'], ['y1', 'x2', 'z3']]);
    await r.openNext();
    await r.openNext();
    expect(r.batches.at(-1)).toEqual(['x4']);
    await Promise.all(all);
  });

  it('retries a failed batch item by item, so only the bad item fails', async () => {
    const r = gatedRunner((x) => x === 'bad');
    const b = new WriteBatcher(r.run, { maxInFlight: 1, maxBatch: 10 });
    const first = b.submit('a');
    const settled = Promise.allSettled(['b', 'bad', 'c'].map((x) => b.submit(x)));
    await r.openNext();
    await first;
    await r.openNext(); // the batch [b, bad, c] fails
    for (let i = 0; i < 3; i++) await r.openNext();
    const outcomes = await settled;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.batches.slice(1)).toEqual([['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
  });

  it('rejects a lone write with the error of its statement', async () => {
    const b = new WriteBatcher<string, string>(
      async () => {
        throw new Error('refused');
      },
      { maxInFlight: 1, maxBatch: 10 },
    );
    await expect(b.submit('a')).rejects.toThrow('refused');
  });

  it('treats a batch that answers the wrong number of results as failed', async () => {
    let calls = 0;
    const b = new WriteBatcher<string, string>(
      async (items) => {
        calls += 1;
        return items.length > 1 ? ['only one'] : items.map((i) => `ok ${i}`);
      },
      { maxInFlight: 1, maxBatch: 10 },
    );
    const first = b.submit('a');
    const rest = Promise.all([b.submit('b'), b.submit('c')]);
    expect(await first).toBe('ok a');
    expect(await rest).toEqual(['ok b', 'ok c']);
    expect(calls).toBe(4);
  });
});
