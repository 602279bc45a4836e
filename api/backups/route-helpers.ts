// Shared by the /api/snapshots route files: OpenAPI security, poll hint, and finding a snapshot.
import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Storage } from '../app-storage.ts';
import type { Entitlements } from '../commerce/entitlements/entitlements.ts';
import type { Config } from '../config.ts';

import { requireOffice } from '../shared/authenticate.ts';
import type { CredentialVerifier, Principal } from '../shared/identity.ts';
import { ProblemError } from '../shared/problem.ts';
import type { BackupServices } from './backup-services.ts';
import { type BackupScope, principalOf } from './backups-auth.ts';
import type { SnapshotRecord } from './snapshots-repo.ts';

/** The options of backupsPlugin: the services the /api/snapshots routes use. */
export interface BackupsOptions {
  config: Config;
  verifiers: CredentialVerifier[];
  storage: Storage;
  backups: BackupServices;
  /** Scheduling and restoring need the Backups add-on in a self-serve office's plan. */
  entitlements: Entitlements;
  now: () => number;
  /** The /api/v1 request budget, which /api/snapshots shares. */
  rateLimit: onRequestHookHandler;
}

export const secured = { security: [{ bearer: [] }], tags: ['backups'] };

/** Route options for a scope: enforced by the plugin's hook, listed in the OpenAPI security. */
export const needs = (scope: BackupScope) => ({ config: { backupsScope: scope } });
/** Seconds a client should wait before polling a snapshot or restore again. */
export const POLL_AFTER_SECONDS = '2';

/** Finds the snapshot (404) and checks the caller's office binding (403). */
export async function findSnapshot(
  request: FastifyRequest<{ Params: { id: string } }>,
  services: Pick<BackupsOptions, 'storage'>,
): Promise<{ snapshot: SnapshotRecord; principal: Principal }> {
  const principal = principalOf(request);
  const snapshot = await services.storage.snapshots.get(request.params.id);
  if (!snapshot) throw new ProblemError('not_found', `No snapshot with id ${request.params.id}.`);
  requireOffice(principal, snapshot.officeId);
  return { snapshot, principal };
}

/** The office must exist in the cluster (a namespace labelled colony.ai/office=<id>): 404 otherwise. */
export async function requireKnownOffice(
  services: Pick<BackupsOptions, 'backups'>,
  officeId: string,
): Promise<void> {
  const resources = services.backups.resources;
  if (!resources)
    throw new ProblemError('service_unavailable', 'No Kubernetes cluster is configured (set KUBECONFIG).');
  if (!(await resources.officeNamespace(officeId)))
    throw new ProblemError(
      'not_found',
      `No office ${officeId}: no namespace is labelled colony.ai/office=${officeId}.`,
    );
}
