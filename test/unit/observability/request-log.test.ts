import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLoggerFactory } from '../../../api/observability/lazy-child-logger.ts';
import { OneLinePerRequest } from '../../../api/observability/request-log.ts';

async function serverLoggingAt(level: string) {
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
