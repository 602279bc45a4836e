// Pure: an Integration's credential files, rendered strictly from its Secret's values. The API renders them
// to refuse a bad template at write time; the controller renders them into the office.
import { createHash } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import type { IntegrationManifest } from '../integrations/registry/manifest-schema.ts';
import { renderTemplate, TemplateError } from '../integrations/registry/templates.ts';
import {
  LABEL_GENERATED,
  LABEL_INSTANCE,
  LABEL_INTEGRATION,
  LABEL_MANAGED_BY,
  LABEL_OFFICE,
  MANAGED_BY,
} from './labels.ts';

/** The Secret that holds an Integration's rendered credential files. */
export const filesSecretName = (secretName: string) => `${secretName}-files`;

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

/** The labels of every object an Integration's layers generate in its office. */
export function generatedLabels(ctx: IntegrationContext): Record<string, string> {
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
        labels: generatedLabels(ctx),
        // A hash of the rendered contents (not the contents), so an unchanged render is not re-applied.
        annotations: { 'colony.ai/files-hash': digest },
      },
      data,
    },
  };
}
