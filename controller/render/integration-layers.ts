// Pure: the objects an Integration's layers add to its office besides its credential files: the
// shared-drive claim and the credential check request.
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { generatedLabels, type IntegrationContext, templateData } from '../../cluster/credential-files.ts';
import { renderTemplate, TemplateError } from '../../integrations/registry/templates.ts';
import { driveClaimName } from './agent-layers.ts';

export function renderSharedDriveClaim(
  ctx: IntegrationContext,
  resourceName: string,
): V1PersistentVolumeClaim | undefined {
  const drive = ctx.manifest.sharedDrive;
  if (!drive) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: driveClaimName(resourceName), namespace: ctx.namespace, labels: generatedLabels(ctx) },
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
