// /mcp: the Streamable HTTP endpoint. Token and scope are checked here, at the HTTP level, so
// clients get RFC 6750 challenges (401, or 403 insufficient_scope) they can step up from.
import { Readable } from 'node:stream';
import { isJsonContentType } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findResourceServer } from '../identity/oauth/resources.ts';
import { principalNow, requireScope, verifyingStep } from '../shared/authenticate.ts';
import { bearerChallenge } from '../shared/bearer.ts';
import { allowBrowsers, requestOriginAllowed } from '../shared/browser-access.ts';
import { allowListed } from '../shared/cors-answer.ts';
import type { Principal } from '../shared/identity.ts';
import { ProblemError } from '../shared/problem.ts';
import { problemErrorHandler } from '../shared/problem-handlers.ts';
import type { McpOptions } from './mcp-options.ts';
import { createColonyMcp } from './mcp-server.ts';
import { authInfoOf } from './memory-tools.ts';
import { anonymousAuthInfo, type Outage, outageAnswer } from './outage-signal.ts';
import { SSE_HEADERS, sharedServerRequest, sseEvent } from './shared-server-lane.ts';
import { scopesNeeded } from './tool-scopes.ts';

export const MCP_PATH = '/mcp';

function toWebRequest(request: FastifyRequest, url: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    // The body is re-serialised from the parsed one, so the original framing headers do not apply.
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
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

export async function mcpPlugin(app: FastifyInstance, services: McpOptions): Promise<void> {
  const { baseUrl } = services.config;
  const metadataUrl = findResourceServer(baseUrl, `${baseUrl}${MCP_PATH}`)?.metadataUrl;
  const mcp = await createColonyMcp(services);
  app.addHook('onClose', () => mcp.close());

  // Browsers only from allowed origins: the transport spec's guard against DNS rebinding, checked
  // before anything else (authentication, the body) so a refused page learns nothing.
  const browsers = allowListed(services.config.allowedOrigins);
  allowBrowsers(app, browsers);
  // Callback hooks here and below: every tool call passes them, and an async hook costs a promise each.
  app.addHook('onRequest', (request, _reply, done) => {
    if (requestOriginAllowed(request, browsers)) done();
    else
      done(
        new ProblemError(
          'origin_not_allowed',
          `Requests from origin ${request.headers.origin} are not allowed.`,
        ),
      );
  });

  // Problem+json for every HTTP-level failure, refused input and unreadable bodies included.
  app.setErrorHandler(problemErrorHandler(baseUrl));

  /** Who is calling, once the body is JSON and the token covers every memory tool the body calls. */
  async function admit(request: FastifyRequest): Promise<Principal | null> {
    // Fastify parses forms too; MCP speaks JSON only, so anything else is refused before parsing
    // reaches the SDK (which would see a body and a header that disagree).
    if (request.method === 'POST' && !isJsonContentType(request.headers['content-type'] ?? '')) {
      throw new ProblemError(
        'unsupported_media_type',
        'MCP requests are JSON-RPC: send Content-Type: application/json.',
      );
    }
    // Verified already by the onRequest step: usually answered now, without a promise to wait for.
    const now = principalNow(request, baseUrl, services.verifiers, metadataUrl);
    const principal = now instanceof Promise ? await now : now;
    const needed = scopesNeeded(request.body);
    if (needed.length === 0) return principal;
    if (!principal) {
      // The scope attribute (RFC 6750 §3) tells the client what to ask for in the first place.
      const challenge = `${bearerChallenge(baseUrl, undefined, metadataUrl)}, scope="${needed.join(' ')}"`;
      throw new ProblemError(
        'unauthorized',
        `The memory tools need a bearer token with ${needed.join(', ')}.`,
        {
          headers: { 'www-authenticate': challenge },
        },
      );
    }
    for (const scope of needed) requireScope(principal, scope, baseUrl, metadataUrl);
    return principal;
  }

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    // A token that is sent but bad is refused before the body is read; whether one is needed at all
    // depends on the tools the body calls, which admit() decides once it is parsed.
    onRequest: verifyingStep((request) => principalNow(request, baseUrl, services.verifiers, metadataUrl)),
    handler: async (request, reply) => {
      const principal = await admit(request);
      const token = request.headers.authorization?.replace(/^Bearer +/i, '') ?? '';
      const outage: Outage = { hit: false };
      const authInfo = principal ? authInfoOf(principal, token, outage) : anonymousAuthInfo(outage);
      // Tool calls, the hot path, go to the shared server: no server, transport, Request or
      // Response is built for them. Everything else keeps the SDK's per-request entry.
      const shared = sharedServerRequest(request.method, request.headers, request.body);
      const answer = shared
        ? await mcp.exchange(shared, authInfo)
        : await mcp.handler.fetch(toWebRequest(request, `${baseUrl}${request.url}`), {
            authInfo,
            ...(request.body !== undefined ? { parsedBody: request.body } : {}),
          });
      if (outage.hit) return reply.code(503).header('retry-after', '5').send(outageAnswer(request.body));
      if (answer instanceof Response) return sendWebResponse(reply, answer);
      return reply.headers(SSE_HEADERS).send(sseEvent(answer));
    },
  });
}
