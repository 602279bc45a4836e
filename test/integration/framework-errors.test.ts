// What the framework itself raises (a path that is not percent-encoded UTF-8, a segment over the router's
// limit, a method or path nothing serves, a method Node cannot parse, a request while shutting down) is
// answered in the format of the path's surface: problem+json, ACP, UCP, or a page for browsers.
// Through the real server, on SQLite and PostgreSQL.
import { connect } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import {
  freePort,
  type ListeningServer,
  startListeningServer,
  startTestServerOn,
  type TestServer,
} from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

type Format = 'problem' | 'acp' | 'ucp' | 'page';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The wire code of an answer in `format`, after checking it is that format. */
function codeIn(format: Format, a: Answer, browser = false): string {
  const type = String(a.headers['content-type']);
  if (format === 'page' && browser) {
    expect(type).toMatch(/^text\/html/);
    expect(a.headers['x-frame-options']).toBe('DENY');
    expect(String(a.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    return /problems\/([a-z_]+)/.exec(a.body)?.[1] ?? '';
  }
  if (format === 'problem' || format === 'page') {
    expect(type).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(a.body);
    expect(body).toMatchObject({ status: a.status, type: expect.stringMatching(`/problems/${body.code}$`) });
    return body.code;
  }
  expect(type).toMatch(/^application\/json/);
  expect(a.headers['request-id']).toBeTruthy();
  const body = JSON.parse(a.body);
  if (format === 'acp') {
    expect(body).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    expect(a.headers['api-version']).toBeTruthy();
    return body.code;
  }
  expect(body.ucp).toMatchObject({ status: 'error' });
  return body.messages[0].code;
}

const answerOf = (res: LightMyRequestResponse): Answer => ({
  status: res.statusCode,
  headers: res.headers,
  body: res.body,
});

interface SurfaceCase {
  name: string;
  format: Format;
  /** A path the surface serves, the methods it serves there, and a method it does not. */
  known: string;
  allow: string;
  /** A path with a parameter the router decodes, without its value (a wildcard has no length limit). */
  param: string;
  wildcard?: boolean;
  unknown: string;
}

const surfaces: SurfaceCase[] = [
  {
    name: '/api/v1',
    format: 'problem',
    known: '/api/v1/pricing',
    allow: 'GET, HEAD',
    param: '/api/v1/jobs/',
    unknown: '/api/v1/nope',
  },
  {
    name: '/api/snapshots',
    format: 'problem',
    known: '/api/snapshots',
    allow: 'GET, HEAD, POST',
    param: '/api/snapshots/',
    unknown: '/api/snapshots/snap_1/nothing/here',
  },
  {
    name: 'ACP',
    format: 'acp',
    known: '/checkout_sessions/cs_1',
    allow: 'GET, HEAD, POST',
    param: '/checkout_sessions/',
    unknown: '/checkout_sessions/cs_1/refund',
  },
  {
    name: 'UCP',
    format: 'ucp',
    known: '/ucp/v1/checkout-sessions/ucs_1',
    allow: 'GET, HEAD, PUT',
    param: '/ucp/v1/checkout-sessions/',
    unknown: '/ucp/v1/orders',
  },
  {
    name: '/mcp',
    format: 'problem',
    known: '/mcp',
    allow: 'GET, HEAD, POST, DELETE',
    param: '/mcp/',
    wildcard: true,
    unknown: '/mcp/extra',
  },
  {
    name: 'a page',
    format: 'page',
    known: '/signin',
    allow: 'GET, HEAD, POST',
    param: '/docs/',
    unknown: '/nope',
  },
];

const LONG = 'x'.repeat(101);

describe.each(storageTargets)('framework errors on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(target, {}, { runJobs: false });
  });
  afterAll(() => s.close());

  const inject = async (method: string, url: string, headers: Record<string, string> = {}) =>
    answerOf(await s.app.inject({ method: method as 'GET', url, headers }));

  describe.each(surfaces)('on $name', (c) => {
    // The page surface answers a browser with HTML and any other client with problem+json.
    const clients = c.format === 'page' ? [false, true] : [false];

    it.each(clients)('answers a path that is not percent-encoded UTF-8 with 400 (browser: %s)', async (b) => {
      const a = await inject('GET', `${c.param}%E0%A4%A`, b ? { accept: HTML } : {});
      expect(a.status).toBe(400);
      expect(codeIn(c.format, a, b)).toBe('invalid_request');
      expect(a.headers['x-request-id']).toBeTruthy();
    });

    // /mcp has no parameter to overrun: a long segment there is simply a path nothing serves.
    const [longStatus, longCode] = c.wildcard ? [404, 'route_not_found'] : [414, 'uri_too_long'];
    it.each(clients)(
      `answers a path segment over 100 characters with ${longStatus} (browser: %s)`,
      async (b) => {
        const a = await inject('GET', `${c.param}${LONG}`, b ? { accept: HTML } : {});
        expect(a.status).toBe(longStatus);
        expect(codeIn(c.format, a, b)).toBe(longCode);
      },
    );

    it.each(['TRACE', 'QUERY', 'PATCH'])(
      'answers %s on a path it serves otherwise with 405 and Allow',
      async (m) => {
        const a = await inject(m, c.known);
        expect(a.status).toBe(405);
        expect(a.headers.allow).toBe(c.allow);
        expect(codeIn(c.format, a)).toBe('method_not_allowed');
      },
    );

    it.each(clients)('answers a path it does not serve with 404 (browser: %s)', async (b) => {
      const a = await inject('GET', c.unknown, b ? { accept: HTML } : {});
      expect(a.status).toBe(404);
      expect(a.headers.allow).toBeUndefined();
      expect(codeIn(c.format, a, b)).toBe('route_not_found');
    });
  });

  it('answers a body sent to a path nothing serves with 404, whatever the body', async () => {
    const headers = { 'content-type': 'application/json' };
    for (const url of ['/api/v1/nope', '/nope']) {
      const res = await s.app.inject({ method: 'POST', url, headers, payload: '{"broken":' });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('route_not_found');
    }
  });

  it('keeps 404 for a route that serves the method but finds nothing', async () => {
    const a = await inject('GET', '/docs/no-such-doc', { accept: HTML });
    expect(a.status).toBe(404);
    expect(codeIn('page', a, true)).toBe('route_not_found');
  });

  it('answers OPTIONS where no browser may call with the same 405, listing only real operations', async () => {
    const a = await inject('OPTIONS', '/signin');
    expect(a.status).toBe(405);
    expect(a.headers.allow).toBe('GET, HEAD, POST');
    // Paths open to browsers answer OPTIONS themselves (browser-origins.test.ts covers preflights).
    const b = await inject('OPTIONS', '/api/v1/pricing');
    expect(b.status).toBe(204);
    expect(b.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

/** Writes raw bytes on one connection and collects everything the server sends until it closes it. */
function exchange(
  baseUrl: string,
  chunks: (string | ((received: () => string) => Promise<void>))[],
): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    socket.on('data', (d) => {
      received += d.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (typeof chunk === 'string') socket.write(chunk);
        else await chunk(() => received);
      }
      // No end(): each exchange here ends with an answer after which the server closes the connection.
    });
  });
}

/** The final answers in what a connection received, read by Content-Length (interim 100 Continue left out). */
function parseRaw(raw: string): Answer[] {
  const answers: Answer[] = [];
  let rest = raw;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.slice(end + 4, end + 4 + length);
    rest = rest.slice(end + 4 + length);
    const status = Number(statusLine.split(' ')[1]);
    if (status !== 100) answers.push({ status, headers, body });
  }
  return answers;
}

describe.each(storageTargets)('requests Node or the closing server answer on $name', (target) => {
  let s: ListeningServer;
  beforeAll(async () => {
    s = await startListeningServer(target, {}, { runJobs: false });
  });
  afterAll(() => s.close());

  it.each([
    ['/api/v1/pricing', 'problem', 405, 'method_not_allowed'],
    ['/checkout_sessions', 'acp', 405, 'method_not_allowed'],
    ['/ucp/v1/nope', 'ucp', 404, 'route_not_found'],
    ['/nope', 'page', 404, 'route_not_found'],
  ] as const)(
    'answers a method Node does not know on %s in its format',
    async (path, format, status, code) => {
      const raw = await exchange(s.baseUrl, [`FROB ${path} HTTP/1.1\r\nHost: colony\r\n\r\n`]);
      const [answer] = parseRaw(raw);
      if (!answer) throw new Error(`no answer in ${raw}`);
      expect(answer.status).toBe(status);
      expect(codeIn(format, answer)).toBe(code);
    },
  );
});

describe.each(storageTargets)('shutting down on $name', (target) => {
  it('answers a request that arrives while closing with 503 shutting_down, Retry-After and Connection: close', async () => {
    const s = await startListeningServer(target, {}, { runJobs: false });
    let closed: Promise<void> | undefined;
    // The first request holds the connection open (its body is still coming) while the server starts to
    // close; Node's 100 Continue says it was dispatched. The second, pipelined behind it, reaches the server
    // only once it is closing.
    const head = 'Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n';
    const raw = await exchange(s.baseUrl, [
      `POST /api/v1/nope HTTP/1.1\r\nHost: colony\r\n${head}{`,
      async (received) => {
        await eventually(async () => received().startsWith('HTTP/1.1 100'));
        closed = s.app.close();
        await eventually(async () => !s.app.server.listening);
      },
      '}GET /api/v1/pricing HTTP/1.1\r\nHost: colony\r\n\r\n',
    ]);
    await closed;
    await s.close();
    const [first, second] = parseRaw(raw);
    expect(first?.status).toBe(404);
    if (!second) throw new Error(`no second answer in ${raw}`);
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('5');
    expect(second.headers.connection).toBe('close');
    expect(second.headers['x-request-id']).toBeTruthy();
    expect(codeIn('problem', second)).toBe('shutting_down');
  });
});

describe.each(storageTargets)('framework errors on the manager listener on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(
      target,
      { COLONY_MANAGER_PORT: String(await freePort()) },
      { runJobs: false },
    );
  });
  afterAll(() => s.close());

  it('answers 405 with Allow, 414 and unknown paths in problem+json there too', async () => {
    const manager = s.app.managerServer;
    if (!manager) throw new Error('no manager listener');
    await manager.ready();
    const trace = answerOf(await manager.inject({ method: 'TRACE', url: '/api/v1/offices/o1/tasks' }));
    expect(trace.status).toBe(405);
    expect(trace.headers.allow).toContain('GET');
    expect(codeIn('problem', trace)).toBe('method_not_allowed');
    const long = answerOf(await manager.inject({ url: `/api/v1/offices/${LONG}/tasks` }));
    expect([long.status, codeIn('problem', long)]).toEqual([414, 'uri_too_long']);
    const nope = answerOf(await manager.inject({ url: '/nope' }));
    expect([nope.status, codeIn('problem', nope)]).toEqual([404, 'route_not_found']);
  });
});
