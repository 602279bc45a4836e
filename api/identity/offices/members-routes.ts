// Office membership on the office-manager API: who may operate an office. The bootstrap operator
// (or any owner) adds accounts by email; the first owner is set this way.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import { officeParams } from '../../office/schemas.ts';
import { problemResponses } from '../../public/problem-responses.ts';
import { authenticate, requireOffice, requireScope } from '../../shared/authenticate.ts';
import type { CredentialVerifier, Principal } from '../../shared/identity.ts';
import { ProblemError } from '../../shared/problem.ts';
import type { IdentityServices } from '../identity-services.ts';
import type { OfficeMember } from './office-members-repo.ts';
import { memberParams, memberSchema, membersSchema, putMemberBody } from './schemas.ts';

const secured = { security: [{ bearer: [] }], tags: ['office-manager'] };
const problems = problemResponses(400, 401, 403, 404, 409, 429);

const present = (m: OfficeMember) => ({
  officeId: m.officeId,
  accountId: m.accountId,
  email: m.email,
  name: m.name,
  role: m.role,
  addedAt: new Date(m.createdAt).toISOString(),
});

export interface MemberRoutesOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  identity: IdentityServices;
  now: () => number;
}

/** Mounted beside the office-manager plugin, under the same /offices prefix. */
export async function officeMemberRoutes(fastify: FastifyInstance, opts: MemberRoutesOptions): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, verifiers, identity, now } = opts;

  const operator = async (
    request: FastifyRequest,
    officeId: string,
    scope: 'offices:read' | 'offices:write',
  ): Promise<Principal> => {
    const principal = await authenticate(request, config.baseUrl, verifiers);
    requireScope(principal, scope, config.baseUrl);
    requireOffice(principal, officeId);
    return principal;
  };
  /** Managing members takes every office (the bootstrap operator) or the owner role in this one. */
  const owner = async (request: FastifyRequest, officeId: string): Promise<void> => {
    const principal = await operator(request, officeId, 'offices:write');
    if (principal.offices === '*') return;
    // An agent credential never acts as the owner who provisioned it.
    const role =
      principal.accountId && !principal.agent
        ? await identity.officeMembers.role(officeId, principal.accountId)
        : undefined;
    if (role !== 'owner')
      throw new ProblemError('forbidden', `Only an owner of office ${officeId} may manage its members.`);
  };

  app.get(
    '/:officeID/members',
    {
      schema: {
        ...secured,
        operationId: 'listOfficeMembers',
        summary: 'Accounts that may operate the office, with their roles',
        params: officeParams,
        response: { 200: membersSchema, ...problems },
      },
    },
    async (request) => {
      const { officeID } = request.params;
      await operator(request, officeID, 'offices:read');
      return { officeId: officeID, members: (await identity.officeMembers.ofOffice(officeID)).map(present) };
    },
  );

  app.put(
    '/:officeID/members',
    {
      schema: {
        ...secured,
        operationId: 'putOfficeMember',
        summary: 'Add an account to the office by email, or change its role',
        params: officeParams,
        body: putMemberBody,
        response: { 200: memberSchema, 201: memberSchema, ...problems },
      },
    },
    async (request, reply) => {
      const { officeID } = request.params;
      await owner(request, officeID);
      const account = await identity.accounts.byEmail(request.body.email);
      if (!account)
        throw new ProblemError(
          'not_found',
          `No account with email ${request.body.email}; they sign up at /signup first.`,
        );
      const current = await identity.officeMembers.role(officeID, account.id);
      if (current === 'owner' && request.body.role !== 'owner') await keepAnOwner(officeID);
      const created = await identity.officeMembers.upsert(officeID, account.id, request.body.role, now());
      const member = (await identity.officeMembers.ofOffice(officeID)).find(
        (m) => m.accountId === account.id,
      );
      if (!member) throw new Error('membership vanished after it was written');
      return reply.code(created ? 201 : 200).send(present(member));
    },
  );

  app.delete(
    '/:officeID/members/:accountId',
    {
      schema: {
        ...secured,
        operationId: 'deleteOfficeMember',
        summary: 'Remove an account from the office',
        params: memberParams,
        response: { 204: z.null().describe('Removed'), ...problems },
      },
    },
    async (request, reply) => {
      const { officeID, accountId } = request.params;
      await owner(request, officeID);
      const role = await identity.officeMembers.role(officeID, accountId);
      if (!role) throw new ProblemError('not_found', `${accountId} is not a member of office ${officeID}.`);
      if (role === 'owner') await keepAnOwner(officeID);
      await identity.officeMembers.remove(officeID, accountId);
      return reply.code(204).send(null);
    },
  );

  /** An office with owners keeps at least one, or nobody but the bootstrap operator could manage it. */
  async function keepAnOwner(officeId: string): Promise<void> {
    if ((await identity.officeMembers.countOwners(officeId)) <= 1)
      throw new ProblemError(
        'conflict',
        `This is the last owner of office ${officeId}; make another member owner first.`,
      );
  }
}
