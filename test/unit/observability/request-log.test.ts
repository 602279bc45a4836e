import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../api/config.ts';
import { lazyChildLoggerFactory } from '../../../api/observability/lazy-child-logger.ts';
import {
  OneLinePerRequest,
  type RequestLineFields,
  type RequestLineQueue,
  requestLineFormatter,
} from '../../../api/observability/request-log.ts';
import { loggerOptions } from '../../../api/server.ts';

/** A server at `level` whose pino lines are collected; with `requestLines`, request lines go there instead. */
async function serverLoggingAt(level: string, requestLines?: RequestLineQueue) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const app = Fastify({
    loggerInstance: pino({ level, redact: ['req.headers.authorization'] }, sink),
    childLoggerFactory: lazyChildLoggerFactory,
    logController: new OneLinePerRequest({
      requestIdLogLabel: 'requestId',
      disableRequestLogging: (request) => request.url === '/healthz',
      requestLines,
    }),
  });
  app.get('/items', async () => ({ ok: true }));
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/quiet', { logLevel: 'warn' }, async () => ({ ok: true }));
  app.get('/boom', async () => {
    throw new Error('broken');
  });
  app.post('/audit', async (request) => {
    request.log.info({ keyId: 'k1' }, 'api key created');
    return { ok: true };
  });
  await app.ready();
  return { app, lines };
}

describe('OneLinePerRequest', () => {
  it('writes one line per request with method, url, status, duration, request id and client address', async () => {
    const { app, lines } = await serverLoggingAt('info');
    const res = await app.inject({ url: '/items?page=2' });
    expect(res.statusCode).toBe(200);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request completed',
      level: 30,
      requestId: expect.any(String),
      method: 'GET',
      url: '/items?page=2',
      statusCode: 200,
      remoteAddress: '127.0.0.1',
    });
    expect(typeof lines[0]?.responseTime).toBe('number');
  });

  it('keeps the lines a handler writes, with the request id, before the request line', async () => {
    const { app, lines } = await serverLoggingAt('info');
    await app.inject({ method: 'POST', url: '/audit' });
    expect(lines.map((l) => l.msg)).toEqual(['api key created', 'request completed']);
    expect(lines[0]?.requestId).toBe(lines[1]?.requestId);
    expect(lines[0]?.keyId).toBe('k1');
  });

  it('redacts tokens and codes in the query string', async () => {
    const { app, lines } = await serverLoggingAt('info');
    await app.inject({ url: '/items?access_token=secret-one&x=1&code=secret-two' });
    expect(lines[0]?.url).toBe('/items?access_token=[REDACTED]&x=1&code=[REDACTED]');
    expect(JSON.stringify(lines)).not.toContain('secret-');
  });

  it('writes nothing for quiet paths, for routes logging above info, or below the level', async () => {
    const { app, lines } = await serverLoggingAt('info');
    await app.inject({ url: '/healthz' });
    await app.inject({ url: '/quiet' });
    expect(lines).toHaveLength(0);
    const warn = await serverLoggingAt('warn');
    await warn.app.inject({ url: '/items' });
    expect(warn.lines).toHaveLength(0);
  });

  it('leaves the error line of a failed request to Fastify, with the error, at warn too', async () => {
    const { app, lines } = await serverLoggingAt('warn');
    const res = await app.inject({ url: '/boom' });
    expect(res.statusCode).toBe(500);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.level === 50)).toBe(true);
    expect(lines.some((l) => (l.err as { message?: string } | undefined)?.message === 'broken')).toBe(true);
  });

  it('works with Fastify’s null logger', async () => {
    const app = Fastify({ logger: false, logController: new OneLinePerRequest() });
    app.get('/', async () => 'ok');
    expect((await app.inject({ url: '/' })).statusCode).toBe(200);
  });
});

describe('the request line queued without pino', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const cases: RequestLineFields[] = [
    {
      requestId: 'req_52d04b5bdb14003uwb',
      method: 'GET',
      url: '/api/v1/pricing',
      statusCode: 200,
      responseTime: 0.04446299999835901,
      remoteAddress: '127.0.0.1',
    },
    {
      requestId: 'req_x',
      method: 'POST',
      url: '/api/v1/skills?q="quoted"\\back\u0001ctl&name=caf\u00e9\u{1F41D}&token=[REDACTED]',
      statusCode: 404,
      responseTime: 12,
      remoteAddress: '::ffff:10.0.0.7',
    },
    {
      requestId: 'r',
      method: 'DELETE',
      url: '/',
      statusCode: 503,
      responseTime: 1e-7,
      remoteAddress: undefined,
    },
  ];

  it("is byte for byte the line the server's own pino logger writes for the same fields", () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-26T12:00:00.123Z'));
    const written: string[] = [];
    const config = loadConfig({ LOG_LEVEL: 'info', COLONY_DATA_DIR: '/nonexistent' });
    const options = loggerOptions(config, { write: (line: string) => written.push(line) });
    const logger = pino(
      options as pino.LoggerOptions,
      (options as { stream: pino.DestinationStream }).stream,
    );
    const format = requestLineFormatter('requestId');
    // Twice: the second pass is made of the pieces the first one cached.
    for (const fields of [...cases, ...cases]) {
      logger.info({ ...fields }, 'request completed');
      expect(format(fields, Date.now())).toBe(written.at(-1));
    }
    expect(written).toHaveLength(2 * cases.length);
  });

  it('queues one line per answered request, none below info or on a quiet path; the error line still goes to pino', async () => {
    const queued: string[] = [];
    const { app, lines: viaPino } = await serverLoggingAt('info', { queue: (line) => queued.push(line) });
    for (const url of ['/items?page=2', '/healthz', '/quiet', '/boom']) await app.inject({ url });
    // The failed request has its line too (its status says so), besides Fastify's error line.
    expect(queued.map((l) => JSON.parse(l).statusCode)).toEqual([200, 500]);
    expect(queued.every((l) => l.endsWith('}\n') && l.indexOf('\n') === l.length - 1)).toBe(true);
    expect(JSON.parse(queued[0] ?? '')).toMatchObject({
      level: 30,
      msg: 'request completed',
      method: 'GET',
      url: '/items?page=2',
      statusCode: 200,
      remoteAddress: '127.0.0.1',
      requestId: expect.any(String),
    });
    expect(viaPino.some((l) => l.msg === 'request completed')).toBe(false);
    expect(viaPino.some((l) => (l.err as { message?: string } | undefined)?.message === 'broken')).toBe(true);
  });
});
