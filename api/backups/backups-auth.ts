// Who may do what on /api/snapshots: every route declares its backups scope in its config; one
// onRequest hook authenticates and checks it before the body is even read, so a caller without
// the right credential learns nothing from validation errors.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticate, requireScope } from '../shared/authenticate.ts';
import type { CredentialVerifier, Principal } from '../shared/identity.ts';

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

/** 403 insufficient_scope naming the scope (identity's requireScope), unless a broader scope covers it. */
export function requireBackupScope(principal: Principal, scope: BackupScope, baseUrl: string): void {
  if (implied[scope].some((s) => principal.scopes.includes(s))) return;
  requireScope(principal, scope, baseUrl);
}

export function backupsAuthHook(auth: {
  baseUrl: string;
  verifiers: readonly CredentialVerifier[];
}): onRequestAsyncHookHandler {
  return async (request) => {
    const scope = request.routeOptions.config.backupsScope;
    if (!scope) return;
    const principal = await authenticate(request, auth.baseUrl, auth.verifiers);
    requireBackupScope(principal, scope, auth.baseUrl);
    request.backupsPrincipal = principal;
  };
}

/** The principal the hook authenticated; routes without a scope never call this. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.backupsPrincipal) throw new Error('backups route without a declared scope');
  return request.backupsPrincipal;
}
