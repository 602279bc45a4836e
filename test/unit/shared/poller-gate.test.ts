import { describe, expect, it } from 'vitest';
import { type Poller, PollerGate } from '../../../api/shared/poller-gate.ts';

function recorder(log: string[], name: string): Poller {
  return {
    start: () => log.push(`${name} start`),
    stop: async () => {
      await Promise.resolve();
      log.push(`${name} stop`);
    },
  };
}

describe('PollerGate', () => {
  it('starts what is attached while leading, and nothing while following', async () => {
    const log: string[] = [];
    new PollerGate(true).attach(recorder(log, 'a'));
    new PollerGate(false).attach(recorder(log, 'b'));
    expect(log).toEqual(['a start']);
  });

  it('moves the pollers with each term, in order, and tells its listeners', async () => {
    const log: string[] = [];
    const gate = new PollerGate(false);
    const seen: boolean[] = [];
    gate.onChange((leading) => seen.push(leading));
    gate.attach(recorder(log, 'a'));
    gate.attach(recorder(log, 'b'));
    // A quick win, loss and win again is applied in order: never two starts without a stop between.
    await Promise.all([gate.set(true), gate.set(false), gate.set(true), gate.set(true)]);
    expect(log).toEqual(['a start', 'b start', 'a stop', 'b stop', 'a start', 'b start']);
    expect(seen).toEqual([true, false, true]);
    expect(gate.leading).toBe(true);
  });

  it('stops a poller once when it is detached, and never starts it again', async () => {
    const log: string[] = [];
    const gate = new PollerGate(true);
    const detach = gate.attach(recorder(log, 'a'));
    await detach();
    await detach();
    await gate.set(false);
    await gate.set(true);
    expect(log).toEqual(['a start', 'a stop']);
  });
});
