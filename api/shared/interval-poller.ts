// A poller that runs one pass every interval while started, never two passes at once; stopping waits
// for the pass under way. The cluster-wide sweeps use it under the PollerGate.
import type { FastifyBaseLogger } from 'fastify';
import type { Poller } from './poller-gate.ts';

export function intervalPoller(o: {
  everyMs: number;
  /** One pass, answering counts of what it did: logged when any is above zero. */
  pass: () => Promise<Record<string, number>>;
  /** The log message of a pass that did something (and, with "failed", of one that threw). */
  name: string;
  log: FastifyBaseLogger;
}): Poller {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  return {
    start() {
      if (timer) return;
      timer = setInterval(() => {
        if (running) return;
        running = o
          .pass()
          .then((r) => {
            if (Object.values(r).some((n) => n > 0)) o.log.info(r, o.name);
          })
          .catch((err) => o.log.warn({ err }, `${o.name} failed`))
          .finally(() => {
            running = undefined;
          });
      }, o.everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
