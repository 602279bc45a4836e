// Child process of the MCP bench: Colony's real server, a bare server built with the official MCP
// SDK serving the same public tool, and a bare route sending the same bytes, all on loopback. Prints
// one JSON line with their addresses, then serves until killed.
import { createServer, type IncomingMessage } from 'node:http';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import Fastify from 'fastify';
import { z } from 'zod';
import { startListeningServer } from '../support/server.ts';
import { sqliteTarget } from '../support/storage-targets.ts';
import { MCP_HEADERS, toolCall } from './mcp.bench.ts';

const colony = await startListeningServer(
  sqliteTarget,
  {
    COLONY_API_RATE_LIMIT: '1000000000',
    COLONY_SIGNIN_RATE_LIMIT: '100000',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
  },
  { validateResponses: false, runJobs: false },
);

// The same tool, answering the same value: Colony's own answer, taken once.
const sample = await fetch(`${colony.baseUrl}/mcp`, {
  method: 'POST',
  headers: MCP_HEADERS,
  body: toolCall('get_pricing', {}),
});
const sampleBytes = Buffer.from(await sample.arrayBuffer());
const sampleType = sample.headers.get('content-type') ?? 'text/event-stream';
const pricing = JSON.parse(/^data: (.+)$/m.exec(sampleBytes.toString('utf8'))?.[1] ?? '{}').result;

// The SDK's stateless serving as its documentation shows it: a factory called for every request,
// returning a fresh server with its tools, behind createMcpHandler's web-standard fetch face.
const sdkHandler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bare-sdk', version: '1.0.0' });
  server.registerTool(
    'get_pricing',
    {
      description: 'Plans and prices.',
      inputSchema: z.object({ plan: z.string().max(64).optional() }),
      annotations: { readOnlyHint: true },
    },
    async () => pricing,
  );
  return server;
});

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// Plain node:http in front of it, the thinnest mounting there is.
const sdk = createServer(async (req, res) => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === 'string') headers.set(name, value);
  const body = req.method === 'POST' ? await bodyOf(req) : undefined;
  // The body is handed over parsed too, as a framework's JSON parser would: the SDK's fastest entry.
  const response = await sdkHandler.fetch(
    new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, ...(body ? { body } : {}) }),
    body ? { parsedBody: JSON.parse(body.toString('utf8')) } : {},
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise<void>((resolve) => sdk.listen(0, '127.0.0.1', resolve));
const sdkAddress = sdk.address();
const sdkUrl = `http://127.0.0.1:${typeof sdkAddress === 'object' && sdkAddress ? sdkAddress.port : 0}/mcp`;

// The bare route: Colony's answer bytes, no MCP at all.
const bare = Fastify({ logger: false });
bare.post('/bare', async (_request, reply) => reply.type(sampleType).send(sampleBytes));
const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/bare`;

process.stdout.write(`${JSON.stringify({ colonyBase: colony.baseUrl, sdkUrl, bareUrl })}\n`);
// The parent reads this process's CPU time around each load run to get server CPU per request.
process.on('message', () => process.send?.(process.cpuUsage()));
process.on('SIGTERM', async () => {
  sdk.close();
  await Promise.all([colony.close(), bare.close()]);
  process.exit(0);
});
