// Office-manager API (spec 4.7): store an integration's credentials for an office, toggle it per
// agent, list and delete. Writes go to Kubernetes (Secret + Integration / AgentBinding); the
// controller does the rest. Secret values are never echoed, logged or put in a resource.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { renderCredentialFiles } from '../../cluster/credential-files.ts';
import { renderIntegrationSecret } from '../../cluster/integration-secret.ts';
import { integrationResourceName, registrationEntry } from '../../cluster/registration.ts';
import { recommendations } from '../../integrations/registry/composition.ts';
import { registerMemberRoutes } from '../identity/offices/members-routes.ts';
import { problemResponses } from '../public/problem-responses.ts';
import { authenticate, requireOffice, requireScope } from '../shared/authenticate.ts';
import { ProblemError } from '../shared/problem.ts';
import {
  guardEnable,
  guardMembers,
  guardRemove,
  guardSave,
  guardSurface,
  officeState,
} from './composition-guard.ts';
import { connectionView, registerConnectStart } from './connect-start.ts';
import type { OfficeCluster } from './office-cluster.ts';
import { registerOfficeRoutes } from './office-routes.ts';
import {
  agentParams,
  agentToggleSchema,
  deleteQuery,
  integrationParams,
  officeIntegrationsSchema,
  officeParams,
  savedIntegrationSchema,
  saveSecretBody,
  toggleAgentBody,
} from './schemas.ts';
import { registerTaskRoutes } from './tasks-routes.ts';
import { checkCredentials } from './validate-credentials.ts';

const secured = { security: [{ bearer: [] }], tags: ['office-manager'] };
const officeProblems = problemResponses(400, 401, 403, 404, 409, 429, 503);

export async function officePlugin(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, registry, taskScheduler } = fastify.colony;

  const cluster = (): OfficeCluster => {
    const c = fastify.colony.officeCluster;
    if (!c)
      throw new ProblemError('service_unavailable', 'No Kubernetes cluster is configured (set KUBECONFIG).');
    return c;
  };
  /** Authenticates, checks the scope and that the credential is bound to the office, finds its namespace. */
  const office = async (
    request: FastifyRequest,
    officeId: string,
    scope: 'offices:read' | 'offices:write' = 'offices:write',
  ): Promise<string> => {
    const principal = await authenticate(request, config.baseUrl, verifiers);
    requireScope(principal, scope, config.baseUrl);
    requireOffice(principal, officeId);
    const ns = await cluster().officeNamespace(officeId);
    if (!ns)
      throw new ProblemError(
        'not_found',
        `No office ${officeId}: no namespace is labelled colony.ai/office=${officeId}.`,
      );
    return ns;
  };
  const definition = (id: string) => {
    const m = registry.get(id);
    if (!m) throw new ProblemError('not_found', `No integration ${id} in the registry.`);
    return m;
  };

  registerOfficeRoutes(fastify, cluster);
  registerTaskRoutes(fastify, office);
  registerConnectStart(fastify, office);

  app.post(
    '/:officeID/integrations/:integration_id/secret',
    {
      schema: {
        ...secured,
        operationId: 'saveIntegrationSecret',
        summary: 'Store (or re-save) an integration’s credentials for an office',
        params: integrationParams,
        body: saveSecretBody,
        response: { 200: savedIntegrationSchema, ...officeProblems },
      },
    },
    async (request) => {
      const { officeID, integration_id } = request.params;
      const namespace = await office(request, officeID);
      const manifest = definition(integration_id);
      const check = checkCredentials(manifest, officeID, request.body);
      if (!check.ok) {
        throw new ProblemError(
          'invalid_request',
          check.errors.map((e) => `${e.location}: ${e.message}`).join('; '),
          {
            errors: check.errors,
          },
        );
      }
      const c = cluster();
      guardSave(
        registry,
        manifest,
        officeState(registry, await c.listIntegrations(namespace), []).configured,
      );
      const files = renderCredentialFiles(
        {
          manifest,
          officeId: officeID,
          namespace,
          secretName: check.secretName,
          instanceLabel: check.instanceLabel,
        },
        check.values,
      );
      if (files && !files.ok) {
        throw new ProblemError('invalid_request', files.message, {
          errors: [{ location: 'body.data', message: files.message }],
        });
      }
      await c.saveSecret(
        renderIntegrationSecret({
          manifest,
          officeId: officeID,
          namespace,
          secretName: check.secretName,
          instanceLabel: check.instanceLabel,
          data: check.values,
        }),
      );
      const saved = await c.saveIntegration(
        namespace,
        integrationResourceName(manifest.id, check.instanceLabel),
        {
          integrationId: manifest.id,
          officeId: officeID,
          ...(check.instanceLabel ? { instanceLabel: check.instanceLabel } : {}),
          secretName: check.secretName,
        },
      );
      request.log.info(
        { officeId: officeID, integration: manifest.id, keys: Object.keys(check.values) },
        'integration secret saved',
      );
      return {
        officeId: officeID,
        integrationId: manifest.id,
        instanceLabel: check.instanceLabel ?? null,
        registration: saved.status?.registration ?? registrationEntry(manifest, check.secretName),
        savedKeys: Object.keys(check.values).sort(),
      };
    },
  );

  app.post(
    '/:officeID/integrations/:integration_id/agents/:agentName',
    {
      schema: {
        ...secured,
        operationId: 'toggleAgentIntegration',
        summary: 'Enable or disable a configured integration for one agent',
        params: agentParams,
        body: toggleAgentBody,
        response: { 200: agentToggleSchema, ...officeProblems },
      },
    },
    async (request) => {
      const { officeID, integration_id, agentName } = request.params;
      const namespace = await office(request, officeID);
      definition(integration_id);
      const c = cluster();
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
      const manifest = definition(integration_id);
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

  app.get(
    '/:officeID/integrations',
    {
      schema: {
        ...secured,
        operationId: 'listOfficeIntegrations',
        summary: 'An office’s integrations with their registration status and agents',
        params: officeParams,
        response: { 200: officeIntegrationsSchema, ...officeProblems },
      },
    },
    async (request) => {
      const { officeID } = request.params;
      const namespace = await office(request, officeID, 'offices:read');
      const c = cluster();
      const [integrations, bindings, connections] = await Promise.all([
        c.listIntegrations(namespace),
        c.listBindings(namespace),
        fastify.colony.storage.connect.forOffice(officeID),
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

  app.delete(
    '/:officeID/integrations/:integration_id/secret',
    {
      schema: {
        ...secured,
        operationId: 'deleteIntegrationSecret',
        summary: 'Delete an integration’s credentials (and its configuration) from an office',
        params: integrationParams,
        querystring: deleteQuery,
        response: { 204: z.null().describe('Deleted'), ...officeProblems },
      },
    },
    async (request, reply) => {
      const { officeID, integration_id } = request.params;
      const namespace = await office(request, officeID);
      const manifest = definition(integration_id);
      const instance = request.query.instance;
      if (manifest.multiInstance && !instance) {
        throw new ProblemError(
          'invalid_request',
          `${integration_id} has several instances: name one with ?instance=`,
          {
            errors: [{ location: 'query.instance', message: 'required for a multiInstance integration' }],
          },
        );
      }
      const configured = (await cluster().listIntegrations(namespace)).find(
        (i) => i.metadata?.name === integrationResourceName(integration_id, instance),
      );
      const secretName = configured?.spec.secretName ?? '';
      if (configured) {
        const all = await cluster().listIntegrations(namespace);
        const others = all.filter((i) => i.metadata?.name !== configured.metadata?.name);
        // Another instance of the same integration still provides what dependents need.
        if (!others.some((i) => i.spec.integrationId === integration_id))
          guardRemove(registry, manifest, officeState(registry, all, []).configured, 'in this office');
      }
      const deleted = configured
        ? await cluster().deleteIntegration(namespace, configured.metadata?.name ?? '', secretName)
        : false;
      if (!deleted)
        throw new ProblemError('not_found', `${integration_id} is not configured in office ${officeID}.`);
      await fastify.colony.storage.connect.remove({
        officeId: officeID,
        integrationId: integration_id,
        instanceLabel: instance,
      });
      return reply.code(204).send(null);
    },
  );

  registerMemberRoutes(fastify);
}
