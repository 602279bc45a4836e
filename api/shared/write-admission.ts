// Admission for write requests on a surface whose database runs on the event loop (embedded SQLite):
// at most `limit` are past parsing at once, and the rest wait, unparsed, in arrival order.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * With SQLite, a write's work is all event-loop time, so 32 clients creating flat out put 32
 * requests' parsing, pricing, SQL and rendering ahead of any read that arrives. Bounding how many
 * writes run at once keeps that queue short: a read waits for a few writes, not for all of them,
 * while enough writes run to fill each shared fsync (group commit).
 */
export class AdmissionGate {
  private readonly limit: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError('an admission limit is a positive integer');
    this.limit = limit;
  }

  /** Calls `admit` now if a place is free, otherwise when one frees, oldest first. */
  enter(admit: () => void): void {
    if (this.active < this.limit) {
      this.active += 1;
      admit();
    } else this.waiting.push(admit);
  }

  /** Frees a place; the oldest waiter takes it. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active -= 1;
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }
}

const closed = (request: FastifyRequest, reply: FastifyReply) =>
  reply.raw.closed || reply.raw.destroyed || request.raw.socket?.destroyed === true;

/**
 * Makes every request of `app` with an unsafe method pass `gate` before its body is parsed. The place
 * is freed when the response closes, however it ends (answered, failed, or the client gone); a client
 * that left while waiting never takes one.
 */
export function admitWrites(app: FastifyInstance, gate: AdmissionGate): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') {
      done(null, payload);
      return;
    }
    gate.enter(() => {
      if (closed(request, reply)) {
        gate.leave();
        done(null, payload);
        return;
      }
      reply.raw.once('close', () => gate.leave());
      done(null, payload);
    });
  });
}
