// GET an office's integrations: each with its registration status, Connect state and agents, plus
// what the registry recommends adding next.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { registrationEntry } from '../../../cluster/registration.ts';
import { recommendations } from '../../../integrations/registry/composition.ts';
import { officeState } from '../composition-guard.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { officeIntegrationsSchema, officeParams, officeProblems, officeSecured } from '../schemas.ts';
import { connectionView } from './connect.ts';

export function listIntegrationsRoute(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const { registry, storage } = ctx;
  fastify.withTypeProvider<ZodTypeProvider>().get(
    '/:officeID/integrations',
    {
      schema: {
        ...officeSecured,
        operationId: 'listOfficeIntegrations',
        summary: 'An office’s integrations with their registration status and agents',
        params: officeParams,
        response: { 200: officeIntegrationsSchema, ...officeProblems },
      },
    },
    async (request) => {
      const { officeID } = request.params;
      const namespace = await ctx.office(request, officeID, 'offices:read');
      const c = ctx.cluster();
      const [integrations, bindings, connections] = await Promise.all([
        c.listIntegrations(namespace),
        c.listBindings(namespace),
        storage.connect.forOffice(officeID),
      ]);
      return {
        officeId: officeID,
        recommendations: recommendations(registry.list(), officeState(registry, integrations, []).configured),
        integrations: integrations.map((i) => {
          const manifest = registry.get(i.spec.integrationId);
          const pending = manifest ? registrationEntry(manifest, i.spec.secretName) : undefined;
          return {
            integrationId: i.spec.integrationId,
            instanceLabel: i.spec.instanceLabel ?? null,
            registration: i.status?.registration ??
              pending ?? {
                Name: i.spec.integrationId,
                ID: i.spec.integrationId,
                Status: 'error' as const,
                SecretName: i.spec.secretName,
                Capabilities: [],
                AgentEnvVars: [],
              },
            conditions: i.status?.conditions ?? [],
            connection: connectionView(
              connections.find(
                (k) => k.integrationId === i.spec.integrationId && k.instanceLabel === i.spec.instanceLabel,
              ),
            ),
            agents: bindings
              .filter((b) => b.spec.secretName === i.spec.secretName)
              .map((b) => ({
                agentName: b.spec.agentName,
                enabled: b.spec.enabled,
                conditions: b.status?.conditions ?? [],
              })),
          };
        }),
      };
    },
  );
}
