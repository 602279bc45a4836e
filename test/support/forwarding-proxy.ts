// A reverse proxy in front of a test server, doing what an ingress controller does with the client's
// address: it appends the address it sees to X-Forwarded-For and passes the rest through.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ForwardingProxy {
  /** The proxy's own base URL, on 127.0.0.1. */
  url: string;
  close(): Promise<void>;
}

/** What the proxy sends upstream: the client's own X-Forwarded-For, then the address it connected from. */
export function forwardedFor(incoming: IncomingMessage): string {
  const peer = incoming.socket.remoteAddress ?? '';
  const prior = incoming.headers['x-forwarded-for'];
  const entries = [prior].flat().filter((v): v is string => typeof v === 'string' && v !== '');
  return [...entries, peer].join(', ');
}

export async function startForwardingProxy(upstream: string): Promise<ForwardingProxy> {
  const target = new URL(upstream);
  const server: Server = createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers, 'x-forwarded-for': forwardedFor(incoming) };
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', () => {
      outgoing.writeHead(502).end();
    });
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Exchange {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A request from a given loopback address (127.0.0.2, 127.0.0.3, … all reach the proxy on Linux), so
 * the proxy sees distinct clients, as an ingress controller sees distinct hosts.
 */
export function requestFrom(
  localAddress: string,
  url: string,
  exchange: Exchange = {},
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  const { method = 'GET', headers = {}, body } = exchange;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
