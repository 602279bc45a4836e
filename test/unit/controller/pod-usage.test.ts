import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  emptyLedger,
  ledgerConfigMap,
  milliCredits,
  periodMilliCredits,
  readLedger,
  usagePeriod,
} from '../../../cluster/usage-ledger.ts';
import { advanceLedger, podWeight, quantity, runningSpan } from '../../../controller/metering/pod-usage.ts';

const T0 = Date.UTC(2026, 10, 10, 12, 0, 0); // 2026-11-10T12:00:00Z
const HOUR = 3_600_000;

function pod(o: {
  uid?: string;
  start?: number;
  cpu?: string;
  memory?: string;
  phase?: string;
  finishedAt?: number;
  deletedAt?: number;
}): V1Pod {
  const requests: Record<string, string> = {};
  if (o.cpu) requests.cpu = o.cpu;
  if (o.memory) requests.memory = o.memory;
  return {
    metadata: {
      name: o.uid ?? 'p',
      namespace: 'office-a',
      uid: o.uid ?? 'uid-1',
      ...(o.deletedAt ? { deletionTimestamp: new Date(o.deletedAt) } : {}),
    },
    spec: { containers: [{ name: 'agent', resources: { requests } }] },
    status: {
      phase: o.phase ?? 'Running',
      ...(o.start !== undefined ? { startTime: new Date(o.start) } : {}),
      containerStatuses: [
        {
          name: 'agent',
          image: 'x',
          imageID: 'x',
          ready: true,
          restartCount: 0,
          state: o.finishedAt
            ? { terminated: { exitCode: 0, finishedAt: new Date(o.finishedAt) } }
            : { running: { startedAt: new Date(o.start ?? T0) } },
        },
      ],
    },
  };
}

const opts = (now: number) => ({ now, forgetAfterSeconds: 3600 });

describe('quantity', () => {
  it.each([
    ['500m', 0.5],
    ['2', 2],
    ['1.5Gi', 1.5 * 1024 ** 3],
    ['512Mi', 512 * 1024 ** 2],
    ['1G', 1e9],
    ['2e3', 2000],
    [undefined, 0],
    ['nonsense!', 0],
  ])('reads %s as %s', (q, n) => {
    expect(quantity(q)).toBeCloseTo(n);
  });
});

describe('podWeight', () => {
  it.each([
    ['a standard pod (1 vCPU, 2 GiB)', '1', '2Gi', 1000],
    ['half the CPU and half the memory', '500m', '1Gi', 500],
    ['more memory than CPU: memory decides', '500m', '8Gi', 4000],
    ['more CPU than memory: CPU decides', '3', '1Gi', 3000],
    ['a tiny pod, rounded up to the next thousandth', '1m', '1Mi', 1],
    ['a third of a vCPU, rounded up', '333500u', undefined, 334],
  ])('%s weighs %s/%s → %i', (_name, cpu, memory, weight) => {
    expect(podWeight(pod({ cpu, ...(memory ? { memory } : {}) }))).toBe(weight);
  });

  it('counts a pod that requests nothing as one standard pod', () => {
    expect(podWeight(pod({}))).toBe(1000);
  });
});

describe('runningSpan', () => {
  it('has no span before the kubelet started the pod', () => {
    expect(runningSpan(pod({ phase: 'Pending' }))).toBeUndefined();
  });

  it('runs open-ended while running, and until the deletion deadline once deleted', () => {
    expect(runningSpan(pod({ start: T0 }))).toEqual({ start: T0 / 1000, end: undefined });
    expect(runningSpan(pod({ start: T0, deletedAt: T0 + HOUR }))).toEqual({
      start: T0 / 1000,
      end: (T0 + HOUR) / 1000,
    });
  });

  it('ends when the last container finished, for a finished pod or a deleted one', () => {
    const end = { start: T0 / 1000, end: (T0 + HOUR) / 1000 };
    expect(runningSpan(pod({ start: T0, phase: 'Succeeded', finishedAt: T0 + HOUR }))).toEqual(end);
    expect(runningSpan(pod({ start: T0, finishedAt: T0 + HOUR, deletedAt: T0 + 2 * HOUR }))).toEqual(end);
  });
});

describe('advanceLedger', () => {
  it('counts a standard pod running two hours as two credits', () => {
    const { ledger } = advanceLedger(emptyLedger(), [pod({ start: T0 })], opts(T0 + 2 * HOUR));
    expect(periodMilliCredits(ledger, '2026-11')).toBe(2000);
    expect(ledger.pods['uid-1']).toEqual([1000, (T0 + 2 * HOUR) / 1000]);
  });

  it('never counts the same second twice, however often it runs over the same state', () => {
    const pods = [pod({ start: T0, cpu: '2' })];
    let l = advanceLedger(emptyLedger(), pods, opts(T0 + HOUR)).ledger;
    const again = advanceLedger(l, pods, opts(T0 + HOUR));
    expect(again.changed).toBe(false);
    expect(again.ledger).toEqual(l);
    // Ten passes over 90 minutes give what one pass gives.
    for (let i = 1; i <= 10; i++) l = advanceLedger(l, pods, opts(T0 + HOUR + i * 540_000)).ledger;
    const once = advanceLedger(emptyLedger(), pods, opts(T0 + 2.5 * HOUR)).ledger;
    expect(l.periods).toEqual(once.periods);
    expect(periodMilliCredits(l, '2026-11')).toBe(5000);
  });

  it('stops counting at the end of a finished pod, even when it is seen later', () => {
    const done = pod({ start: T0, phase: 'Failed', finishedAt: T0 + HOUR / 2 });
    const { ledger } = advanceLedger(emptyLedger(), [done], opts(T0 + 5 * HOUR));
    expect(periodMilliCredits(ledger, '2026-11')).toBe(500);
  });

  it('splits a pod that runs over midnight at the end of the month between the two periods', () => {
    const start = Date.UTC(2026, 10, 30, 23, 0, 0);
    const { ledger } = advanceLedger(emptyLedger(), [pod({ start })], opts(start + 3 * HOUR));
    expect(periodMilliCredits(ledger, '2026-11')).toBe(1000);
    expect(periodMilliCredits(ledger, '2026-12')).toBe(2000);
  });

  it('keeps the weight a pod had when first counted', () => {
    const first = advanceLedger(emptyLedger(), [pod({ start: T0, cpu: '1' })], opts(T0 + HOUR)).ledger;
    const resized = advanceLedger(first, [pod({ start: T0, cpu: '4' })], opts(T0 + 2 * HOUR)).ledger;
    expect(periodMilliCredits(resized, '2026-11')).toBe(2000);
  });

  it('forgets a pod gone longer than the horizon, and keeps one gone for less', () => {
    const l = advanceLedger(emptyLedger(), [pod({ start: T0 })], opts(T0 + HOUR)).ledger;
    expect(advanceLedger(l, [], opts(T0 + 1.5 * HOUR)).ledger.pods['uid-1']).toBeDefined();
    const later = advanceLedger(l, [], opts(T0 + 2.5 * HOUR));
    expect(later.changed).toBe(true);
    expect(later.ledger.pods).toEqual({});
    expect(periodMilliCredits(later.ledger, '2026-11')).toBe(1000);
  });

  it('drops periods older than the two before the current one', () => {
    const l = { ...emptyLedger(), periods: { '2026-08': 1, '2026-09': 2, '2026-10': 3, '2026-11': 4 } };
    expect(Object.keys(advanceLedger(l, [], opts(T0)).ledger.periods)).toEqual([
      '2026-09',
      '2026-10',
      '2026-11',
    ]);
  });
});

describe('usage ledger ConfigMap', () => {
  it('reads back what it wrote, and reads an unreadable ledger as empty', () => {
    const { ledger } = advanceLedger(emptyLedger(), [pod({ start: T0 })], opts(T0 + HOUR));
    expect(readLedger(ledgerConfigMap('office-a', ledger, '7'))).toEqual(ledger);
    expect(ledgerConfigMap('office-a', ledger, '7').metadata?.resourceVersion).toBe('7');
    expect(readLedger({ data: { ledger: '{"version":2}' } })).toEqual(emptyLedger());
    expect(readLedger({ data: { ledger: 'not json' } })).toEqual(emptyLedger());
    expect(readLedger(undefined)).toEqual(emptyLedger());
  });

  it('names periods by UTC calendar month and bills whole thousandths', () => {
    expect(usagePeriod(Date.UTC(2026, 0, 31, 23, 59, 59))).toBe('2026-01');
    expect(usagePeriod(Date.UTC(2026, 1, 1))).toBe('2026-02');
    expect(milliCredits(3599)).toBe(0);
    expect(milliCredits(3600 * 1500 + 1)).toBe(1500);
  });
});
