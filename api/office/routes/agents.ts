// Enabling or disabling a configured integration for one agent: upserts its AgentBinding after the
// composition guards agree, then files the integration's task templates for the office at once.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { integrationResourceName } from '../../../cluster/registration.ts';
import { ProblemError } from '../../shared/problem.ts';
import { guardEnable, guardMembers, guardRemove, guardSurface, officeState } from '../composition-guard.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { requireAgentRoom } from '../plan-checks.ts';
import {
  agentParams,
  agentToggleSchema,
  officeProblems,
  officeSecured,
  toggleAgentBody,
} from '../schemas.ts';

export function toggleAgentRoute(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const { registry, taskScheduler } = ctx;
  fastify.withTypeProvider<ZodTypeProvider>().post(
    '/:officeID/integrations/:integration_id/agents/:agentName',
    {
      schema: {
        ...officeSecured,
        operationId: 'toggleAgentIntegration',
        summary: 'Enable or disable a configured integration for one agent',
        params: agentParams,
        body: toggleAgentBody,
        response: { 200: agentToggleSchema, ...officeProblems },
      },
    },
    async (request) => {
      const { officeID, integration_id, agentName } = request.params;
      const namespace = await ctx.office(request, officeID);
      ctx.definition(integration_id);
      const c = ctx.cluster();
      const configured = (await c.listIntegrations(namespace)).find(
        (i) => i.spec.integrationId === integration_id && i.spec.secretName === request.body.secretName,
      );
      if (!configured) {
        throw new ProblemError(
          'not_found',
          `${integration_id} is not configured in office ${officeID} with secret ${request.body.secretName}; save its credentials first.`,
        );
      }
      const instanceLabel = configured.spec.instanceLabel;
      const [integrations, bindings] = await Promise.all([
        c.listIntegrations(namespace),
        c.listBindings(namespace),
      ]);
      const state = officeState(registry, integrations, bindings, agentName);
      const manifest = ctx.definition(integration_id);
      if (request.body.enabled) {
        guardEnable(registry, manifest, state.enabledForAgent, agentName);
        const othersEnabled = bindings
          .filter(
            (b) =>
              b.spec.enabled &&
              b.spec.secretName === request.body.secretName &&
              b.spec.agentName !== agentName,
          )
          .map((b) => b.spec.agentName)
          .sort();
        const roles = manifest.members?.requiredRoles.length ? await c.agentRoles(namespace, agentName) : [];
        guardMembers(manifest, { agentName, roles, config: request.body.config ?? {}, othersEnabled });
        guardSurface(
          registry,
          { manifest, instanceLabel, secretName: request.body.secretName },
          agentName,
          integrations,
          bindings,
        );
        await requireAgentRoom(ctx, { officeId: officeID, namespace, agentName });
      } else {
        guardRemove(registry, manifest, state.enabledForAgent, `for ${agentName}`);
      }
      const binding = await c.saveBinding(
        namespace,
        `${agentName}-${integrationResourceName(integration_id, instanceLabel)}`,
        {
          agentName,
          integrationId: integration_id,
          ...(instanceLabel ? { instanceLabel } : {}),
          secretName: request.body.secretName,
          enabled: request.body.enabled,
          ...(request.body.config ? { config: request.body.config } : {}),
        },
        officeID,
      );
      // Task templates follow enablement at once; the scheduler's periodic sync catches the rest.
      const after = [...bindings.filter((b) => b.metadata?.name !== binding.metadata?.name), binding];
      await taskScheduler.syncOffice(officeID, integrations, after);
      return {
        officeId: officeID,
        integrationId: integration_id,
        instanceLabel: instanceLabel ?? null,
        agentName,
        enabled: binding.spec.enabled,
        secretName: binding.spec.secretName,
        conditions: binding.status?.conditions ?? [],
      };
    },
  );
}
