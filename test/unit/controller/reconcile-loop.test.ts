// The work loop: what each reconcile outcome does to the queue, and the logger each reconcile gets.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../../controller/runtime/logger.ts';
import { RetryableError, TerminalError } from '../../../controller/runtime/reconcile.ts';
import {
  type ReconcileLoopOptions,
  reconcileOne,
  runWorker,
} from '../../../controller/runtime/reconcile-loop.ts';
import { WorkQueue } from '../../../controller/runtime/work-queue.ts';

type Line = { level: string; msg: string } & Record<string, unknown>;

/** A logger that keeps every line with the bindings of the child it was written through. */
function recordingLogger(lines: Line[], bindings: Record<string, unknown> = {}): Logger {
  const write = (level: string) => (obj: object, msg: string) =>
    lines.push({ ...bindings, ...obj, level, msg });
  return {
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
  };
}

/** The queue calls a reconcile leads to, in order. */
function recordingQueue() {
  const calls: string[] = [];
  return {
    calls,
    get: async () => undefined,
    done: (key: string) => calls.push(`done ${key}`),
    forget: (key: string) => calls.push(`forget ${key}`),
    addAfter: (key: string, ms: number) => calls.push(`addAfter ${key} ${ms}`),
    addRateLimited: (key: string) => calls.push(`addRateLimited ${key}`) && 100,
  };
}

function setUp(reconcile: ReconcileLoopOptions['reconcile']) {
  const lines: Line[] = [];
  const events: string[] = [];
  const observed: boolean[] = [];
  const queue = recordingQueue();
  const opts: ReconcileLoopOptions = {
    kind: 'Integration',
    queue,
    reconcile,
    log: recordingLogger(lines),
    recorder: () => (obj, type, reason, message) =>
      events.push(`${type} ${reason} on ${obj.metadata?.name}: ${message}`),
    observe: (_seconds, ok) => observed.push(ok),
    newId: () => 'c0ffee01',
  };
  return { opts, lines, events, observed, calls: queue.calls };
}

const apiDown = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

describe('reconcileOne', () => {
  it.each([
    ['finishes: forgets the key', async () => undefined, ['forget ns/a', 'done ns/a'], true],
    [
      'asks for a re-check: forgets, then adds after requeueAfter ms',
      async () => ({ requeueAfter: 15_000 }),
      ['forget ns/a', 'addAfter ns/a 15000', 'done ns/a'],
      true,
    ],
    [
      'throws a RetryableError: retries with backoff',
      async () => {
        throw new RetryableError('apply refused', { cause: apiDown() });
      },
      ['addRateLimited ns/a', 'done ns/a'],
      false,
    ],
    [
      'throws any other error: retries with backoff',
      async () => {
        throw apiDown();
      },
      ['addRateLimited ns/a', 'done ns/a'],
      false,
    ],
    [
      'throws a TerminalError: forgets, not retried',
      async () => {
        throw new TerminalError('InvalidSpec', 'the spec cannot be applied');
      },
      ['forget ns/a', 'done ns/a'],
      false,
    ],
  ])('when the reconciler %s', async (_case, reconcile, calls, ok) => {
    const t = setUp(reconcile);
    await reconcileOne(t.opts, 'ns/a');
    expect(t.calls).toEqual(calls);
    expect(t.observed).toEqual([ok]);
  });

  it('hands the reconciler the request, never the event', async () => {
    const seen: unknown[] = [];
    const t = setUp(async (req) => {
      seen.push(req);
      return undefined;
    });
    await reconcileOne(t.opts, 'office-acme/slack');
    expect(seen).toEqual([{ namespace: 'office-acme', name: 'slack' }]);
  });

  it('logs a retried failure as a warning and a terminal one as an error with a Warning Event', async () => {
    const retried = setUp(async () => {
      throw apiDown();
    });
    await reconcileOne(retried.opts, 'ns/a');
    expect(retried.lines).toMatchObject([
      { level: 'warn', msg: 'reconcile failed; retrying with backoff', err: 'connect ECONNREFUSED' },
    ]);
    const object = { metadata: { name: 'slack', namespace: 'ns' } };
    const terminal = setUp(async () => {
      throw new TerminalError('InvalidSpec', 'the spec cannot be applied', { object });
    });
    await reconcileOne(terminal.opts, 'ns/slack');
    expect(terminal.lines).toMatchObject([{ level: 'error', reason: 'InvalidSpec' }]);
    expect(terminal.events).toEqual(['Warning InvalidSpec on slack: the spec cannot be applied']);
    expect(retried.events).toEqual([]);
  });

  it('gives every line of one reconcile the same reconcile id, kind, namespace and name', async () => {
    const t = setUp(async (_req, log) => {
      log.info({ step: 'apply' }, 'applying the workload');
      throw apiDown();
    });
    await reconcileOne(t.opts, 'office-acme/slack');
    const ids = { reconcileID: 'c0ffee01', kind: 'Integration', namespace: 'office-acme', name: 'slack' };
    expect(t.lines).toHaveLength(2);
    expect(t.lines).toMatchObject([ids, ids]);
  });

  it('gives each reconcile its own 8-hex-digit id by default', async () => {
    const t = setUp(async (_req, log) => {
      log.info({}, 'reconciling');
      return undefined;
    });
    const { newId: _fixed, ...opts } = t.opts;
    await reconcileOne(opts, 'ns/a');
    await reconcileOne(opts, 'ns/a');
    const [first, second] = t.lines.map((l) => l.reconcileID);
    expect(first).toMatch(/^[0-9a-f]{8}$/);
    expect(second).toMatch(/^[0-9a-f]{8}$/);
    expect(first).not.toBe(second);
  });
});

describe('runWorker', () => {
  it('reconciles queued keys until the queue shuts down, retrying a failure after its backoff', async () => {
    const queue = new WorkQueue({ baseDelayMs: 1 });
    const seen: string[] = [];
    let failures = 1;
    const worker = runWorker({
      kind: 'Agent',
      queue,
      log: recordingLogger([]),
      reconcile: async (req) => {
        seen.push(req.name);
        if (req.name === 'bob' && failures-- > 0) throw new RetryableError('not yet');
        if (seen.length === 3) queue.shutDown();
        return undefined;
      },
    });
    queue.add('ns/alice');
    queue.add('ns/bob');
    await worker;
    expect(seen).toEqual(['alice', 'bob', 'bob']);
    expect(queue.numRequeues('ns/bob')).toBe(0);
  });
});
