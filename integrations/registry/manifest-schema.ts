// The integration manifest (spec 2.5): v1 fields plus the optional manifest v2 layers. Strict:
// unknown keys fail, and every error names its path and the rule it breaks.
import { z } from 'zod';
import { type colonyContainerSchema, envName, layers, oauthSchema } from './layers-schema.ts';
import { dnsLabel } from './names.ts';
import { isReservedEnvKey } from './reserved-keys.ts';
import { TemplateError, templateVariables } from './templates.ts';

export { colonyContainerSchema } from './layers-schema.ts';

export const INSTANCE_LABEL = 'INSTANCE_LABEL';
export const DEFAULT_HELP_LABEL = 'Find it here';
/** Variables every template may read besides the credential keys. */
export const TEMPLATE_CONTEXT = ['officeId', 'instanceLabel'] as const;

export const credentialFieldSchema = z.strictObject({
  key: envName.describe('The env var name'),
  label: z.string().min(1),
  type: z.enum(['text', 'password']),
  required: z.boolean(),
  hint: z.string().min(1).optional(),
  helpUrl: z.url({ protocol: /^https$/ }).optional(),
  helpLabel: z.string().min(1).default(DEFAULT_HELP_LABEL),
});

const ref = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'an integration id or capability name');

const baseSchema = z.strictObject({
  id: dnsLabel.max(40),
  name: z.string().min(1),
  description: z.string().min(1),
  icon: z.string().min(1),
  category: z.enum(['llm', 'communication', 'services']),
  aliases: z.array(z.string().min(1)).default([]),
  verified: z.boolean().default(false),
  capabilities: z.array(z.string().min(1)).default([]),
  channels: z.array(z.string().min(1)).default([]),
  wizard: z.enum(['guide', 'interactive', 'oauth', 'auto']),
  guideFile: z.string().min(1).default('guide.md'),
  requiredSecrets: z.array(credentialFieldSchema),
  agentEnvVars: z.array(envName),
  officeLevel: z.boolean().default(false),
  multiInstance: z.boolean().default(false),
  version: z.string().min(1),
  dependsOn: z.array(ref).default([]),
  provides: z.array(ref).default([]),
  conflicts: z.array(ref).default([]),
  composedWith: z.array(ref).default([]),
  oauth: oauthSchema.optional(),
  ...layers,
});

type Manifest = z.infer<typeof baseSchema>;
type Ctx = z.RefinementCtx;
type Path = (string | number)[];

const issue = (ctx: Ctx, path: Path, message: string) => ctx.addIssue({ code: 'custom', path, message });

/** Keys a Secret of this integration holds: the credential fields and, for OAuth, the tokens. */
export function secretKeys(m: Pick<Manifest, 'requiredSecrets' | 'oauth'>): string[] {
  const keys = m.requiredSecrets.map((f) => f.key).filter((k) => k !== INSTANCE_LABEL);
  if (m.oauth) keys.push(m.oauth.accessTokenKey, m.oauth.refreshTokenKey);
  return keys;
}

/** Env var names that are plain values rather than secret references, by layer. */
export function valueEnvNames(m: Manifest): string[] {
  return [
    ...(m.colonyContainer?.urlEnv ? [m.colonyContainer.urlEnv] : []),
    ...(m.database ? [databaseUrlEnv(m)] : []),
    ...(m.members?.agentConfig.map((c) => c.key) ?? []),
  ];
}

export function databaseUrlEnv(m: Pick<Manifest, 'id' | 'database'>): string {
  return m.database?.urlEnv ?? `${m.id.toUpperCase().replaceAll('-', '_')}_DATABASE_URL`;
}

function checkSecrets(m: Manifest, ctx: Ctx): void {
  const keys = m.requiredSecrets.map((f) => f.key);
  keys.forEach((key, i) => {
    if (keys.indexOf(key) !== i) issue(ctx, ['requiredSecrets', i, 'key'], `duplicate key ${key}`);
    if (key !== INSTANCE_LABEL && isReservedEnvKey(key))
      issue(ctx, ['requiredSecrets', i, 'key'], `${key} is a reserved key`);
  });
  if (m.multiInstance) {
    const label = m.requiredSecrets.find((f) => f.key === INSTANCE_LABEL);
    if (label?.type !== 'text' || !label.required) {
      issue(
        ctx,
        ['requiredSecrets'],
        `multiInstance requires a field {key: ${INSTANCE_LABEL}, type: text, required: true}`,
      );
    }
  }
  if (m.wizard === 'oauth' && !m.oauth) issue(ctx, ['oauth'], 'wizard oauth requires an oauth section');
  if (m.oauth && m.wizard !== 'oauth') issue(ctx, ['wizard'], 'an oauth section requires wizard: oauth');
  const stored = secretKeys(m);
  m.agentEnvVars.forEach((name, i) => {
    if (isReservedEnvKey(name)) issue(ctx, ['agentEnvVars', i], `${name} is a reserved key`);
    else if (!stored.includes(name))
      issue(ctx, ['agentEnvVars', i], `${name} is not a key of requiredSecrets`);
  });
  m.colonyContainer?.secretEnv.forEach((name, i) => {
    if (!stored.includes(name))
      issue(ctx, ['colonyContainer', 'secretEnv', i], `${name} is not a key of requiredSecrets`);
  });
}

function checkValueEnvs(m: Manifest, ctx: Ctx): void {
  const seen = new Set(m.agentEnvVars);
  const where: [string, Path][] = [
    ...(m.colonyContainer?.urlEnv
      ? [[m.colonyContainer.urlEnv, ['colonyContainer', 'urlEnv']] as [string, Path]]
      : []),
    ...(m.database ? [[databaseUrlEnv(m), ['database', 'urlEnv']] as [string, Path]] : []),
    ...(m.members?.agentConfig.map(
      (c, i) => [c.key, ['members', 'agentConfig', i, 'key']] as [string, Path],
    ) ?? []),
  ];
  for (const [name, path] of where) {
    if (isReservedEnvKey(name)) issue(ctx, path, `${name} is a reserved key`);
    else if (seen.has(name))
      issue(ctx, path, `${name} is already injected by another field of this manifest`);
    seen.add(name);
  }
}

function checkTemplate(template: string, allowed: Set<string>, ctx: Ctx, path: Path): void {
  try {
    for (const v of templateVariables(template)) {
      if (!allowed.has(v))
        issue(ctx, path, `template variable ${v} is not a credential key, officeId or instanceLabel`);
    }
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    issue(ctx, path, err.message);
  }
}

function checkTemplates(m: Manifest, ctx: Ctx): void {
  const allowed = new Set<string>([...secretKeys(m), ...TEMPLATE_CONTEXT]);
  const paths = new Set<string>();
  m.credentialFiles?.forEach((f, i) => {
    checkTemplate(f.template, allowed, ctx, ['credentialFiles', i, 'template']);
    if (paths.has(f.path)) issue(ctx, ['credentialFiles', i, 'path'], `duplicate path ${f.path}`);
    paths.add(f.path);
  });
  const check = m.credentialCheck;
  if (check) {
    checkTemplate(check.url, allowed, ctx, ['credentialCheck', 'url']);
    for (const [name, value] of Object.entries(check.headers))
      checkTemplate(value, allowed, ctx, ['credentialCheck', 'headers', name]);
    if (check.body !== undefined) checkTemplate(check.body, allowed, ctx, ['credentialCheck', 'body']);
  }
}

function checkTools(m: Manifest, ctx: Ctx): void {
  const injected = new Set([...m.agentEnvVars, ...valueEnvNames(m)]);
  const names = new Set<string>();
  m.tools?.mcpServers.forEach((s, i) => {
    if (names.has(s.name)) issue(ctx, ['tools', 'mcpServers', i, 'name'], `duplicate MCP server ${s.name}`);
    names.add(s.name);
    for (const [key, value] of Object.entries(s.env)) {
      for (const [, ref] of value.matchAll(/\$\{([^}]*)\}/g)) {
        if (!injected.has(ref ?? ''))
          issue(
            ctx,
            ['tools', 'mcpServers', i, 'env', key],
            `\${${ref}} is not a variable this integration injects`,
          );
      }
    }
  });
}

function checkUnique<T>(list: T[] | undefined, key: (t: T) => string, ctx: Ctx, path: Path, what: string) {
  const seen = new Set<string>();
  list?.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) issue(ctx, [...path, i], `duplicate ${what} ${k}`);
    seen.add(k);
  });
}

function checkComposition(m: Manifest, ctx: Ctx): void {
  for (const field of ['dependsOn', 'conflicts', 'composedWith'] as const) {
    m[field].forEach((r, i) => {
      if (r === m.id || m.provides.includes(r))
        issue(ctx, [field, i], `${r} refers to the integration itself`);
    });
  }
  m.dependsOn.forEach((r, i) => {
    if (m.conflicts.includes(r)) issue(ctx, ['dependsOn', i], `${r} is both a dependency and a conflict`);
  });
}

export const integrationManifestSchema = baseSchema.superRefine((m, ctx) => {
  checkSecrets(m, ctx);
  checkValueEnvs(m, ctx);
  checkTemplates(m, ctx);
  checkTools(m, ctx);
  checkUnique(m.taskTemplates, (t) => t.name, ctx, ['taskTemplates'], 'task template');
  checkUnique(m.cliInstalls?.binaries, (b) => b.name, ctx, ['cliInstalls', 'binaries'], 'binary');
  checkComposition(m, ctx);
});

export type IntegrationManifest = z.infer<typeof integrationManifestSchema>;
export type CredentialField = z.infer<typeof credentialFieldSchema>;
export type ColonyContainer = z.infer<typeof colonyContainerSchema>;
