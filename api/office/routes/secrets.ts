// An integration's credentials in an office: POST stores (or re-saves) them as a Kubernetes Secret
// plus the Integration resource, DELETE removes both. Secret values are never echoed or logged.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { renderCredentialFiles } from '../../../cluster/credential-files.ts';
import { renderIntegrationSecret } from '../../../cluster/integration-secret.ts';
import { integrationResourceName, registrationEntry } from '../../../cluster/registration.ts';
import { ProblemError } from '../../shared/problem.ts';
import { guardRemove, guardSave, officeState } from '../composition-guard.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { requireIntegrationRoom } from '../plan-checks.ts';
import {
  deleteQuery,
  integrationParams,
  officeProblems,
  officeSecured,
  savedIntegrationSchema,
  saveSecretBody,
} from '../schemas.ts';
import { checkCredentials } from '../validate-credentials.ts';

export function saveSecretRoute(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const { registry } = ctx;
  fastify.withTypeProvider<ZodTypeProvider>().post(
    '/:officeID/integrations/:integration_id/secret',
    {
      schema: {
        ...officeSecured,
        operationId: 'saveIntegrationSecret',
        summary: 'Store (or re-save) an integration’s credentials for an office',
        params: integrationParams,
        body: saveSecretBody,
        response: { 200: savedIntegrationSchema, ...officeProblems },
      },
    },
    async (request) => {
      const { officeID, integration_id } = request.params;
      const namespace = await ctx.office(request, officeID);
      const manifest = ctx.definition(integration_id);
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
      const c = ctx.cluster();
      guardSave(
        registry,
        manifest,
        officeState(registry, await c.listIntegrations(namespace), []).configured,
      );
      const name = integrationResourceName(manifest.id, check.instanceLabel);
      await requireIntegrationRoom(ctx, { officeId: officeID, namespace, name }, manifest);
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
      const saved = await c.saveIntegration(namespace, name, {
        integrationId: manifest.id,
        officeId: officeID,
        ...(check.instanceLabel ? { instanceLabel: check.instanceLabel } : {}),
        secretName: check.secretName,
      });
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
}

export function deleteSecretRoute(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const { registry, storage } = ctx;
  fastify.withTypeProvider<ZodTypeProvider>().delete(
    '/:officeID/integrations/:integration_id/secret',
    {
      schema: {
        ...officeSecured,
        operationId: 'deleteIntegrationSecret',
        summary: 'Delete an integration’s credentials (and its configuration) from an office',
        params: integrationParams,
        querystring: deleteQuery,
        response: { 204: z.null().describe('Deleted'), ...officeProblems },
      },
    },
    async (request, reply) => {
      const { officeID, integration_id } = request.params;
      const namespace = await ctx.office(request, officeID);
      const manifest = ctx.definition(integration_id);
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
      const configured = (await ctx.cluster().listIntegrations(namespace)).find(
        (i) => i.metadata?.name === integrationResourceName(integration_id, instance),
      );
      const secretName = configured?.spec.secretName ?? '';
      if (configured) {
        const all = await ctx.cluster().listIntegrations(namespace);
        const others = all.filter((i) => i.metadata?.name !== configured.metadata?.name);
        // Another instance of the same integration still provides what dependents need.
        if (!others.some((i) => i.spec.integrationId === integration_id))
          guardRemove(registry, manifest, officeState(registry, all, []).configured, 'in this office');
      }
      const deleted = configured
        ? await ctx.cluster().deleteIntegration(namespace, configured.metadata?.name ?? '', secretName)
        : false;
      if (!deleted)
        throw new ProblemError('not_found', `${integration_id} is not configured in office ${officeID}.`);
      await storage.connect.remove({
        officeId: officeID,
        integrationId: integration_id,
        instanceLabel: instance,
      });
      return reply.code(204).send(null);
    },
  );
}
