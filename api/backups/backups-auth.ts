// Who may do what on /api/snapshots: every route declares its backups scope in its config; one
// onRequest hook authenticates and checks it before the body is even read, so a caller without
// the right credential learns nothing from validation errors.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppServices } from '../app-services.ts';
import { authenticate } from '../shared/authenticate.ts';
import { bearerChallenge } from '../shared/bearer.ts';
import type { Principal } from '../shared/identity.ts';
import { ProblemError } from '../shared/problem.ts';

export type BackupScope = 'backups:read' | 'backups:write' | 'backups:admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a /api/snapshots route needs. */
    backupsScope?: BackupScope;
  }
  interface FastifyRequest {
    backupsPrincipal?: Principal;
  }
}

// A token granted more may do less: admin covers write and read, write covers read.
const implied: Record<BackupScope, BackupScope[]> = {
  'backups:read': ['backups:read', 'backups:write', 'backups:admin'],
  'backups:write': ['backups:write', 'backups:admin'],
  'backups:admin': ['backups:admin'],
};

/** 403 insufficient_scope naming the scope in the challenge (RFC 6750 section 3.1). */
export function requireBackupScope(principal: Principal, scope: BackupScope, baseUrl: string): void {
  if (implied[scope].some((s) => principal.scopes.includes(s))) return;
  throw new ProblemError('insufficient_scope', `This operation needs the scope ${scope}.`, {
    headers: {
      'www-authenticate': bearerChallenge(baseUrl, {
        code: 'insufficient_scope',
        description: `the token lacks the scope ${scope}`,
        scope,
      }),
    },
  });
}

export function backupsAuthHook(services: AppServices): onRequestAsyncHookHandler {
  return async (request) => {
    const scope = request.routeOptions.config.backupsScope;
    if (!scope) return;
    const principal = await authenticate(request, services.config.baseUrl, services.verifiers);
    requireBackupScope(principal, scope, services.config.baseUrl);
    request.backupsPrincipal = principal;
  };
}

/** The principal the hook authenticated; routes without a scope never call this. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.backupsPrincipal) throw new Error('backups route without a declared scope');
  return request.backupsPrincipal;
}
