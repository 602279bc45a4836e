// Clients that take their time or send too much on a real socket: a request whose body trickles in past
// COLONY_REQUEST_TIMEOUT_SECONDS gets 408 and a closed connection on both listeners, one that finishes
// in time is served, and a request with too many header fields gets 431.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEADER_COUNT } from '../../api/shared/input-limits.ts';
import { freePort, type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const BODY = '{"type":"skills.reindex"}';

interface Exchange {
  /** Everything the server sent before it closed the connection. */
  answer: Promise<string>;
  socket: Socket;
}

function open(port: number, head: string): Exchange {
  const socket = connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  socket.write(head);
  let received = '';
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  return { answer, socket };
}

const OPERATOR_TOKEN = 'slow-clients-operator-token-0123456789';

const postHead = (path: string, length: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}Connection: close\r\n\r\n`;

/** Sends `body` one byte per `everyMs` until it is all sent or the server hangs up. */
function trickle(x: Exchange, body: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (x.socket.destroyed || i >= body.length) {
      clearInterval(timer);
      return;
    }
    x.socket.write(body[i++] as string);
  }, everyMs);
  x.socket.on('close', () => clearInterval(timer));
}

describe.each(storageTargets)('slow clients on $name', (target) => {
  let s: ListeningServer;
  let managerPort: number;
  beforeAll(async () => {
    managerPort = await freePort();
    s = await startListeningServer(target, {
      COLONY_REQUEST_TIMEOUT_SECONDS: '1',
      COLONY_MANAGER_PORT: String(managerPort),
      COLONY_BOOTSTRAP_TOKEN: OPERATOR_TOKEN,
    });
    await s.app.managerServer?.listen({ port: managerPort, host: '127.0.0.1' });
  });
  afterAll(() => s.close());
  const port = () => Number(new URL(s.baseUrl).port);

  it('answers 408 and closes the connection when the body trickles in past the bound', async () => {
    // A byte every 200 ms: the 25-byte body would need 5 s, five times the bound.
    const x = open(port(), postHead('/api/v1/jobs', BODY.length));
    trickle(x, BODY, 200);
    const answer = await x.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/content-type: application\/problem\+json/i);
    expect(answer).toContain('"code":"request_timeout"');
  }, 20_000);

  it('serves a body that arrives in pieces within the bound', async () => {
    const x = open(port(), postHead('/api/v1/jobs', BODY.length));
    x.socket.write(BODY.slice(0, 10));
    setTimeout(() => x.socket.write(BODY.slice(10)), 50);
    expect(await x.answer).toMatch(/^HTTP\/1\.1 202 /);
  }, 20_000);

  it('answers 408 when the headers themselves never finish', async () => {
    const x = open(port(), 'GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    trickle(x, 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 200);
    expect(await x.answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);

  it('bounds the office-manager listener too', async () => {
    // With a valid token: a protected route refuses a missing one before it waits for the body.
    const auth = `Authorization: Bearer ${OPERATOR_TOKEN}\r\n`;
    const x = open(managerPort, postHead('/api/v1/offices/acme/tasks', BODY.length, auth));
    trickle(x, BODY, 200);
    expect(await x.answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 20_000);

  it(`answers 431 to more than ${MAX_HEADER_COUNT} header fields, and serves ${MAX_HEADER_COUNT}`, async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `X-F${i}: v\r\n`).join('');
    // Host and Connection count too.
    const many = open(
      port(),
      `GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields(MAX_HEADER_COUNT)}Connection: close\r\n\r\n`,
    );
    const refused = await many.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 431 /);
    expect(refused).toMatch(/content-type: application\/problem\+json/i);
    expect(refused).toContain('"code":"header_fields_too_large"');
    const enough = open(
      port(),
      `GET /api/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields(MAX_HEADER_COUNT - 2)}Connection: close\r\n\r\n`,
    );
    expect(await enough.answer).toMatch(/^HTTP\/1\.1 200 /);
    // On a checkout path the same refusal is an ACP error object.
    const acp = open(
      port(),
      `GET /checkout_sessions/cs_x HTTP/1.1\r\nHost: 127.0.0.1\r\n${fields(MAX_HEADER_COUNT)}Connection: close\r\n\r\n`,
    );
    const acpAnswer = await acp.answer;
    expect(acpAnswer).toMatch(/^HTTP\/1\.1 431 /);
    expect(acpAnswer).toContain('"type":"invalid_request","code":"header_fields_too_large"');
  }, 20_000);
});
