// Pure: the objects an Integration's layers add to its office: the credential files rendered from
// the Secret's values (strict templates), the shared-drive claim, and the credential check request.
import { createHash } from 'node:crypto';
import type { V1PersistentVolumeClaim, V1Secret } from '@kubernetes/client-node';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import { renderTemplate, TemplateError } from '../../integrations/registry/templates.ts';
import { driveClaimName, filesSecretName } from './agent-layers.ts';
import {
  LABEL_GENERATED,
  LABEL_INSTANCE,
  LABEL_INTEGRATION,
  LABEL_MANAGED_BY,
  LABEL_OFFICE,
  MANAGED_BY,
} from './labels.ts';

export interface IntegrationContext {
  manifest: IntegrationManifest;
  officeId: string;
  namespace: string;
  secretName: string;
  instanceLabel?: string | undefined;
}

/** The values templates see: the credential keys plus officeId and instanceLabel. */
export function templateData(
  ctx: IntegrationContext,
  values: Record<string, string>,
): Record<string, string> {
  return {
    ...values,
    officeId: ctx.officeId,
    ...(ctx.instanceLabel ? { instanceLabel: ctx.instanceLabel } : {}),
  };
}

export function decodeSecretData(secret: V1Secret | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
  );
}

function labels(ctx: IntegrationContext): Record<string, string> {
  return {
    [LABEL_OFFICE]: ctx.officeId,
    [LABEL_INTEGRATION]: ctx.manifest.id,
    ...(ctx.instanceLabel ? { [LABEL_INSTANCE]: ctx.instanceLabel } : {}),
    [LABEL_MANAGED_BY]: MANAGED_BY,
    [LABEL_GENERATED]: 'true',
  };
}

export type FilesRender = { ok: true; secret: V1Secret; hash: string } | { ok: false; message: string };

/** Renders every credential file strictly; the first failure names the file's path and the variable. */
export function renderCredentialFiles(
  ctx: IntegrationContext,
  values: Record<string, string>,
): FilesRender | undefined {
  const files = ctx.manifest.credentialFiles;
  if (!files?.length) return undefined;
  const data: Record<string, string> = {};
  const hash = createHash('sha256');
  for (const [i, f] of files.entries()) {
    try {
      const text = renderTemplate(f.template, templateData(ctx, values));
      data[`file-${i}`] = Buffer.from(text).toString('base64');
      hash.update(`${f.path}\0${text}\0`);
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      return { ok: false, message: `credentialFiles[${i}] (${f.path}): ${err.message}` };
    }
  }
  const digest = hash.digest('hex').slice(0, 16);
  return {
    ok: true,
    hash: digest,
    secret: {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: filesSecretName(ctx.secretName),
        namespace: ctx.namespace,
        labels: labels(ctx),
        // A hash of the rendered contents (not the contents), so an unchanged render is not re-applied.
        annotations: { 'colony.ai/files-hash': digest },
      },
      data,
    },
  };
}

export function renderSharedDriveClaim(
  ctx: IntegrationContext,
  resourceName: string,
): V1PersistentVolumeClaim | undefined {
  const drive = ctx.manifest.sharedDrive;
  if (!drive) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: driveClaimName(resourceName), namespace: ctx.namespace, labels: labels(ctx) },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: drive.size } } },
  };
}

export interface CheckRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  expectStatus: number[];
  timeoutMs: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The credential check as an HTTP request, or a message saying why it cannot be built. */
export function renderCredentialCheck(
  ctx: IntegrationContext,
  values: Record<string, string>,
): { ok: true; request: CheckRequest } | { ok: false; message: string } | undefined {
  const c = ctx.manifest.credentialCheck;
  if (!c) return undefined;
  const data = templateData(ctx, values);
  try {
    const url = new URL(renderTemplate(c.url, data));
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
      return { ok: false, message: 'credentialCheck.url must be https' };
    const headers = Object.fromEntries(
      Object.entries(c.headers).map(([k, v]) => [k, renderTemplate(v, data)]),
    );
    const body = c.body === undefined ? undefined : renderTemplate(c.body, data);
    return {
      ok: true,
      request: {
        method: c.method,
        url: url.toString(),
        headers,
        body,
        expectStatus: c.expectStatus,
        timeoutMs: c.timeoutSeconds * 1000,
      },
    };
  } catch (err) {
    if (err instanceof TemplateError) return { ok: false, message: `credentialCheck: ${err.message}` };
    if (err instanceof TypeError)
      return { ok: false, message: 'credentialCheck.url does not render to a URL' };
    throw err;
  }
}
