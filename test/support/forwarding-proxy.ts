// A reverse proxy in front of a test server, doing what an ingress controller does with the client's
// address: it appends the address it sees to X-Forwarded-For and passes the rest through, to one upstream
// or round-robin to several.
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

/**
 * A proxy over one upstream, or round-robin over several. Like an ingress controller's default
 * (proxy_next_upstream error), a request whose upstream refuses the connection is tried on the next one,
 * so a replica that has stopped listening drops out; the body is read first so it can be sent again.
 */
export async function startForwardingProxy(upstreams: string | string[]): Promise<ForwardingProxy> {
  const targets = [upstreams].flat().map((u) => new URL(u));
  let turn = 0;
  const server: Server = createServer(async (incoming, outgoing) => {
    const headers = { ...incoming.headers, 'x-forwarded-for': forwardedFor(incoming) };
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const first = turn++;
    const attempt = (tried: number): void => {
      const target = targets[(first + tried) % targets.length] as URL;
      const forward = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED' && tried + 1 < targets.length) attempt(tried + 1);
        else if (!outgoing.headersSent) outgoing.writeHead(502).end();
      });
      forward.end(body);
    };
    attempt(0);
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
