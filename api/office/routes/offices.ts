// Creating and deleting an office: PUT makes (or adopts) its namespace and, in offices mode, grants
// Colony its rights there; DELETE gives the namespace back once Colony has nothing left in it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authenticate, requireOffice, requireScope } from '../../shared/authenticate.ts';
import { ProblemError } from '../../shared/problem.ts';
import { GrantsPendingError, NamespaceTakenError, OfficeNamespaces } from '../office-namespaces.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { MAX_DEFAULT_OFFICE_ID } from '../render-office-grants.ts';
import { officeParams, officeProblems, officeSchema, officeSecured } from '../schemas.ts';

export function officeRoutes(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity, kubeConfig, cluster } = ctx;
  const k = config.kubernetes;
  const offices = kubeConfig
    ? new OfficeNamespaces(kubeConfig, { rbacScope: k.rbacScope, grants: k.officeGrants })
    : undefined;

  /** Like managing members: a credential for every office, or the owner role in this one. */
  const owner = async (request: FastifyRequest, officeId: string): Promise<OfficeNamespaces> => {
    const principal = await authenticate(request, config.baseUrl, verifiers);
    requireScope(principal, 'offices:write', config.baseUrl);
    requireOffice(principal, officeId);
    if (principal.offices !== '*') {
      const role = principal.accountId
        ? await identity.officeMembers.role(officeId, principal.accountId)
        : undefined;
      if (role !== 'owner')
        throw new ProblemError('forbidden', `Only an owner of office ${officeId} may create or delete it.`);
    }
    if (!offices)
      throw new ProblemError('service_unavailable', 'No Kubernetes cluster is configured (set KUBECONFIG).');
    if (k.watchNamespace)
      throw new ProblemError(
        'conflict',
        `Colony runs namespaced (COLONY_WATCH_NAMESPACE=${k.watchNamespace}): its one office is that namespace, labelled by an admin.`,
      );
    return offices;
  };

  app.put(
    '/:officeID',
    {
      schema: {
        ...officeSecured,
        operationId: 'putOffice',
        summary: 'Create an office: its namespace and, in offices mode, Colony’s RoleBindings there',
        params: officeParams,
        response: { 200: officeSchema, 201: officeSchema, ...officeProblems },
      },
    },
    async (request, reply) => {
      const { officeID } = request.params;
      const namespaces = await owner(request, officeID);
      const existing = await cluster().officeNamespace(officeID);
      if (!existing && officeID.length > MAX_DEFAULT_OFFICE_ID)
        throw new ProblemError(
          'invalid_request',
          `office-${officeID} would be longer than a namespace name may be (63): label a namespace colony.ai/office=${officeID} yourself, then PUT again.`,
        );
      try {
        const { namespace, created } = await namespaces.ensure(officeID, existing);
        return reply.code(created ? 201 : 200).send({ officeId: officeID, namespace });
      } catch (err) {
        if (err instanceof NamespaceTakenError) throw new ProblemError('conflict', err.message);
        if (err instanceof GrantsPendingError)
          throw new ProblemError('service_unavailable', `${err.message} Retry the PUT.`);
        throw err;
      }
    },
  );

  app.delete(
    '/:officeID',
    {
      schema: {
        ...officeSecured,
        operationId: 'deleteOffice',
        summary: 'Delete an office: Colony lets go of its namespace, which keeps everything else',
        params: officeParams,
        response: { 204: z.null().describe('Deleted'), ...officeProblems },
      },
    },
    async (request, reply) => {
      const { officeID } = request.params;
      const namespaces = await owner(request, officeID);
      const namespace = await cluster().officeNamespace(officeID);
      if (!namespace)
        throw new ProblemError(
          'not_found',
          `No office ${officeID}: no namespace is labelled colony.ai/office=${officeID}.`,
        );
      const [integrations, bindings] = await Promise.all([
        cluster().listIntegrations(namespace),
        cluster().listBindings(namespace),
      ]);
      // The controller needs its rights in the office to take back what it injected and created.
      if (integrations.length)
        throw new ProblemError(
          'conflict',
          `Office ${officeID} still has integrations (${integrations.map((i) => i.metadata?.name).join(', ')}): delete them first.`,
        );
      const revoking = bindings.filter((b) => b.metadata?.finalizers?.length);
      if (revoking.length)
        throw new ProblemError(
          'conflict',
          `The controller is still revoking ${revoking.map((b) => b.metadata?.name).join(', ')} in office ${officeID}: retry shortly.`,
        );
      await namespaces.remove(namespace);
      return reply.code(204).send(null);
    },
  );
}
