// The office-manager side of the Connect flow (contracts §3): an operator asks for the browser link
// a member of the office opens to connect an OAuth integration; the office list shows its status.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { integrationResourceName } from '../../../cluster/registration.ts';
import type { ConnectionRecord } from '../../connect/connect-repo.ts';
import { ConnectError } from '../../connect/connect-service.ts';
import { connectLink } from '../../connect/connectable.ts';
import { problemResponses } from '../../public/problem-responses.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { requireIntegrationRoom } from '../plan-checks.ts';
import { connectLinkSchema, connectQuery, integrationParams } from '../schemas.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Pure: a connection record as the office integration list shows it. */
export function connectionView(c: ConnectionRecord | undefined) {
  if (!c) return null;
  return {
    status: c.status,
    message: c.message,
    expiresAt: iso(c.expiresAt),
    connectedAt: iso(c.connectedAt) ?? '',
  };
}

const problemCodes = { 400: 'invalid_request', 404: 'not_found', 503: 'service_unavailable' } as const;

export function connectStartRoute(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { connect, config, office } = ctx;

  app.post(
    '/:officeID/integrations/:integration_id/connect',
    {
      schema: {
        security: [{ bearer: [] }],
        tags: ['office-manager'],
        operationId: 'connectIntegration',
        summary: 'The browser link that connects an OAuth integration to the office',
        params: integrationParams,
        querystring: connectQuery,
        response: { 200: connectLinkSchema, ...problemResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { officeID, integration_id } = request.params;
      const namespace = await office(request, officeID);
      try {
        const { manifest } = connect.oauthIntegration(integration_id);
        const { instance } = request.query;
        if (instance && !manifest.multiInstance)
          throw new ConnectError(400, `${manifest.name} has a single instance per office; drop ?instance=.`);
        const name = integrationResourceName(manifest.id, instance);
        await requireIntegrationRoom(ctx, { officeId: officeID, namespace, name }, manifest);
        return { connectUrl: connectLink(config.baseUrl, integration_id, officeID, instance) };
      } catch (err) {
        if (!(err instanceof ConnectError)) throw err;
        const code = problemCodes[err.status as keyof typeof problemCodes] ?? 'invalid_request';
        throw new ProblemError(code, err.message);
      }
    },
  );
}
