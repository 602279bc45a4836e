// A real HTTP server on loopback that serves UCP agent (platform) profiles, good and bad, for UCP-Agent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function platformProfile(version: string, checkoutVersions: string[] = [version]) {
  return {
    ucp: {
      version,
      services: {
        'dev.ucp.shopping': [
          {
            version,
            spec: `https://ucp.dev/${version}/specification/overview`,
            transport: 'rest',
            schema: `https://ucp.dev/${version}/services/shopping/rest.openapi.json`,
          },
        ],
      },
      capabilities: {
        'dev.ucp.shopping.checkout': checkoutVersions.map((v) => ({
          version: v,
          spec: `https://ucp.dev/${v}/specification/checkout`,
          schema: `https://ucp.dev/${v}/schemas/shopping/checkout.json`,
        })),
      },
      payment_handlers: {},
    },
  };
}

const routes: Record<string, { status: number; body: string; headers?: Record<string, string> }> = {
  '/agent/2026-04-08': { status: 200, body: JSON.stringify(platformProfile('2026-04-08')) },
  '/agent/2026-01-23': { status: 200, body: JSON.stringify(platformProfile('2026-01-23')) },
  '/agent/unsupported': { status: 200, body: JSON.stringify(platformProfile('2025-06-01')) },
  '/agent/no-checkout': { status: 200, body: JSON.stringify(platformProfile('2026-04-08', ['2030-01-01'])) },
  '/agent/not-json': { status: 200, body: '<html>hello</html>' },
  '/agent/not-a-profile': { status: 200, body: JSON.stringify({ name: 'agent' }) },
  '/agent/broken': { status: 500, body: 'oops' },
  '/agent/redirect': { status: 302, body: '', headers: { location: '/agent/2026-04-08' } },
};

export interface AgentProfileServer {
  url(path: string): string;
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startAgentProfileServer(): Promise<AgentProfileServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(route.status, {
      'content-type': 'application/json',
      'cache-control': 'public, max-age=60',
      ...route.headers,
    });
    res.end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The UCP-Agent header naming one of the server's profiles. */
export const ucpAgent = (server: AgentProfileServer, path = '/agent/2026-04-08') =>
  `profile="${server.url(path)}"`;
