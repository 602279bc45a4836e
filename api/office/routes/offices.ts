// Creating and deleting an office: PUT makes (or adopts) its namespace and, in offices mode, grants
// Colony its rights there; DELETE gives the namespace back once Colony has nothing left in it. An
// account with a plan may PUT an office it is not yet a member of: it becomes the first owner and
// the office counts against its plan (office-creation.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authenticate, requireOffice, requireScope } from '../../shared/authenticate.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { OfficeRouteContext } from '../office-route-context.ts';
import { officeParams, officeProblems, officeSchema, officeSecured } from '../schemas.ts';

export function officeRoutes(fastify: FastifyInstance, ctx: OfficeRouteContext): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity, officeCreation: creation } = ctx;

  /**
   * Like managing members: a credential for every office, or the owner role in this one. Creating,
   * an account credential may also claim an office nobody has: the account it is for is returned.
   */
  const owner = async (request: FastifyRequest, officeId: string, creating: boolean) => {
    const principal = await authenticate(request, config.baseUrl, verifiers);
    requireScope(principal, 'offices:write', config.baseUrl);
    const selfServe = creating ? await creation.selfServeAccount(principal, officeId) : undefined;
    if (selfServe) return selfServe;
    requireOffice(principal, officeId);
    if (principal.offices !== '*') {
      // An agent credential never acts as the owner who provisioned it.
      const role =
        principal.accountId && !principal.agent
          ? await identity.officeMembers.role(officeId, principal.accountId)
          : undefined;
      if (role !== 'owner')
        throw new ProblemError('forbidden', `Only an owner of office ${officeId} may create or delete it.`);
    }
    creation.namespaces();
    return undefined;
  };

  app.put(
    '/:officeID',
    {
      schema: {
        ...officeSecured,
        operationId: 'putOffice',
        summary: 'Create an office: its namespace and, in offices mode, Colony’s RoleBindings there',
        description:
          'A cluster admin creates any office; an owner re-applies theirs. An account with an active plan or trial may create an office nobody has yet, with a credential for its whole account: it becomes the office’s first owner and the office counts against its plan (403 plan_limit_reached when the plan has no room).',
        params: officeParams,
        response: { 200: officeSchema, 201: officeSchema, ...officeProblems },
      },
    },
    async (request, reply) => {
      const { officeID } = request.params;
      const selfServe = await owner(request, officeID, true);
      const { namespace, created } = selfServe
        ? await creation.createFor(selfServe, officeID)
        : await creation.ensure(officeID, await creation.officeNamespace(officeID));
      if (selfServe)
        request.log.info({ officeId: officeID, accountId: selfServe }, 'self-serve office created');
      return reply.code(created ? 201 : 200).send({ officeId: officeID, namespace });
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
      await owner(request, officeID, false);
      const namespace = await creation.officeNamespace(officeID);
      if (!namespace)
        throw new ProblemError(
          'not_found',
          `No office ${officeID}: no namespace is labelled colony.ai/office=${officeID}.`,
        );
      const [integrations, bindings] = await Promise.all([
        ctx.cluster().listIntegrations(namespace),
        ctx.cluster().listBindings(namespace),
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
      await creation.remove(officeID, namespace);
      return reply.code(204).send(null);
    },
  );
}
