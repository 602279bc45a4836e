// The circuit breaker for optional dependencies: opens after a run of failures, refuses without calling
// during the cool-down, lets one probe through after it, and closes again on the probe's success.
import { describe, expect, it } from 'vitest';
import { CircuitOpenError, circuitBreaker } from '../../api/shared/circuit-breaker.ts';

function setup() {
  const clock = { now: 0 };
  const changes: boolean[] = [];
  const breaker = circuitBreaker({
    failures: 3,
    coolDownMs: 1_000,
    now: () => clock.now,
    onOpenChange: (open) => changes.push(open),
  });
  let calls = 0;
  const fail = () =>
    breaker.run(async () => {
      calls += 1;
      throw new Error('down');
    });
  const succeed = () =>
    breaker.run(async () => {
      calls += 1;
      return 'ok';
    });
  return { clock, breaker, fail, succeed, calls: () => calls, changes };
}

describe('circuitBreaker', () => {
  it('stays closed while failures are fewer than the threshold or interrupted by a success', async () => {
    const b = setup();
    await expect(b.fail()).rejects.toThrow('down');
    await expect(b.fail()).rejects.toThrow('down');
    await expect(b.succeed()).resolves.toBe('ok');
    await expect(b.fail()).rejects.toThrow('down');
    await expect(b.fail()).rejects.toThrow('down');
    expect(b.breaker.state()).toBe('closed');
    expect(b.calls()).toBe(5);
  });

  it('opens after the threshold and refuses without calling until the cool-down is over', async () => {
    const b = setup();
    for (let i = 0; i < 3; i++) await expect(b.fail()).rejects.toThrow('down');
    expect(b.breaker.state()).toBe('open');
    b.clock.now = 999;
    await expect(b.succeed()).rejects.toBeInstanceOf(CircuitOpenError);
    expect(b.calls()).toBe(3);
    b.clock.now = 1_000;
    expect(b.breaker.state()).toBe('half-open');
  });

  it('lets one probe through after the cool-down and closes when it succeeds', async () => {
    const b = setup();
    for (let i = 0; i < 3; i++) await expect(b.fail()).rejects.toThrow('down');
    b.clock.now = 1_000;
    let release!: (v: string) => void;
    const probe = b.breaker.run(() => new Promise<string>((resolve) => (release = resolve)));
    // While the probe is out, others are refused.
    await expect(b.succeed()).rejects.toBeInstanceOf(CircuitOpenError);
    release('back');
    await expect(probe).resolves.toBe('back');
    expect(b.breaker.state()).toBe('closed');
    await expect(b.succeed()).resolves.toBe('ok');
  });

  it('opens again for a whole cool-down when the probe fails', async () => {
    const b = setup();
    for (let i = 0; i < 3; i++) await expect(b.fail()).rejects.toThrow('down');
    b.clock.now = 1_500;
    await expect(b.fail()).rejects.toThrow('down');
    expect(b.breaker.state()).toBe('open');
    b.clock.now = 2_499;
    await expect(b.succeed()).rejects.toBeInstanceOf(CircuitOpenError);
    b.clock.now = 2_500;
    await expect(b.succeed()).resolves.toBe('ok');
    expect(b.calls()).toBe(5);
  });

  it('tells its watcher once when it opens and once when a probe closes it', async () => {
    const b = setup();
    for (let i = 0; i < 3; i++) await expect(b.fail()).rejects.toThrow('down');
    await expect(b.fail()).rejects.toBeInstanceOf(CircuitOpenError);
    b.clock.now = 1_000;
    await expect(b.fail()).rejects.toThrow('down');
    expect(b.changes).toEqual([true]);
    b.clock.now = 2_000;
    await expect(b.succeed()).resolves.toBe('ok');
    await expect(b.succeed()).resolves.toBe('ok');
    expect(b.changes).toEqual([true, false]);
  });
});
