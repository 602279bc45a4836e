// /mcp: the Streamable HTTP endpoint. Token and scope are checked here, at the HTTP level, so
// clients get RFC 6750 challenges (401, or 403 insufficient_scope) they can step up from.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findResourceServer } from '../identity/oauth/resources.ts';
import { optionalPrincipal, requireScope } from '../shared/authenticate.ts';
import { bearerChallenge } from '../shared/bearer.ts';
import { ProblemError } from '../shared/problem.ts';
import { sendProblem } from '../shared/problem-handlers.ts';
import { authInfoOf, createColonyMcpHandler } from './mcp-server.ts';
import { scopesNeeded } from './tool-scopes.ts';

export const MCP_PATH = '/mcp';

function toWebRequest(request: FastifyRequest, url: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const v of [value].flat()) headers.append(name, v);
  }
  const hasBody = request.method === 'POST' && request.body !== undefined;
  return new Request(url, {
    method: request.method,
    headers,
    ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
  });
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => {
    reply.header(name, value);
  });
  const streaming = response.headers.get('content-type')?.startsWith('text/event-stream');
  if (streaming && response.body) return reply.send(Readable.fromWeb(response.body as never));
  return reply.send(Buffer.from(await response.arrayBuffer()));
}

export async function mcpPlugin(app: FastifyInstance): Promise<void> {
  const services = app.colony;
  const { baseUrl } = services.config;
  const metadataUrl = findResourceServer(baseUrl, `${baseUrl}${MCP_PATH}`)?.metadataUrl;
  const handler = createColonyMcpHandler(services);
  app.addHook('onClose', () => handler.close());

  app.setErrorHandler((err, request, reply) => {
    if (err instanceof ProblemError) {
      return sendProblem(reply, request, baseUrl, err.code, err.detail, { headers: err.headers });
    }
    if ((err as { statusCode?: number }).statusCode === 413)
      return sendProblem(reply, request, baseUrl, 'payload_too_large', (err as Error).message);
    if ((err as { statusCode?: number }).statusCode === 400 || err instanceof SyntaxError)
      return sendProblem(reply, request, baseUrl, 'malformed_body', (err as Error).message);
    request.log.error({ err }, 'MCP request failed');
    return sendProblem(reply, request, baseUrl, 'internal_error', 'An unexpected error occurred.');
  });

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    handler: async (request, reply) => {
      const principal = await optionalPrincipal(request, baseUrl, services.verifiers, metadataUrl);
      const needed = scopesNeeded(request.body);
      if (needed.length > 0 && !principal) {
        throw new ProblemError(
          'unauthorized',
          `The memory tools need a bearer token with ${needed.join(', ')}.`,
          {
            headers: { 'www-authenticate': bearerChallenge(baseUrl, undefined, metadataUrl) },
          },
        );
      }
      for (const scope of needed) if (principal) requireScope(principal, scope, baseUrl, metadataUrl);
      const token = request.headers.authorization?.replace(/^Bearer +/i, '') ?? '';
      const response = await handler.fetch(toWebRequest(request, `${baseUrl}${request.url}`), {
        ...(principal ? { authInfo: authInfoOf(principal, token) } : {}),
        ...(request.body !== undefined ? { parsedBody: request.body } : {}),
      });
      return sendWebResponse(reply, response);
    },
  });
}
