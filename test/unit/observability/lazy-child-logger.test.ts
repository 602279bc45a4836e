import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLoggerFactory } from '../../../api/observability/lazy-child-logger.ts';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino({ level }, sink) as unknown as FastifyBaseLogger;
  return { logger, lines };
}

const make = (logger: FastifyBaseLogger, opts = {}) =>
  lazyChildLoggerFactory.call(
    undefined as never,
    logger,
    { requestId: 'r1' },
    opts,
    undefined as never,
  ) as FastifyBaseLogger;

describe('lazyChildLoggerFactory', () => {
  it('creates no pino child while nothing is logged at an enabled level', () => {
    const { logger, lines } = capture('warn');
    const childSpy = vi.spyOn(logger, 'child');
    const log = make(logger);
    log.info('ignored');
    log.debug('ignored');
    expect(childSpy).not.toHaveBeenCalled();
    expect(lines).toHaveLength(0);
    expect(log.level).toBe('warn');
  });

  it('logs enabled levels through a child carrying the bindings, created once', () => {
    const { logger, lines } = capture('info');
    const childSpy = vi.spyOn(logger, 'child');
    const log = make(logger);
    log.info({ a: 1 }, 'first');
    log.error('second');
    expect(childSpy).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.msg, l.requestId, l.level])).toEqual([
      ['first', 'r1', 30],
      ['second', 'r1', 50],
    ]);
    expect(lines[0]?.a).toBe(1);
  });

  it('honours a route-level log level passed in the child options', () => {
    const { logger, lines } = capture('info');
    const log = make(logger, { level: 'debug' });
    expect((log as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled('debug')).toBe(true);
    log.debug('route debug');
    expect(lines.map((l) => l.msg)).toEqual(['route debug']);
  });

  it('applies a level set later to the real child', () => {
    const { logger, lines } = capture('info');
    const log = make(logger);
    log.level = 'error';
    log.warn('dropped');
    log.error('kept');
    expect(lines.map((l) => l.msg)).toEqual(['kept']);
    expect(logger.level).toBe('info');
  });
});

describe('lazyChildLoggerFactory children', () => {
  it('gives grandchildren the request bindings too (regression: a field once shadowed child())', () => {
    const { logger, lines } = capture('info');
    const log = make(logger);
    expect(typeof log.child).toBe('function');
    log.child({ listener: 'office-manager' }).info('nested');
    expect(lines[0]).toMatchObject({ msg: 'nested', requestId: 'r1', listener: 'office-manager' });
  });
});
