// The integration manifest (spec 2.5): v1 fields plus the optional manifest v2 layers. Strict:
// unknown keys fail, and every error names its path.
import { z } from 'zod';
import { dnsLabel } from './names.ts';
import { isReservedEnvKey } from './reserved-keys.ts';

const envName = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_SNAKE_CASE environment variable name');
const quantity = z
  .string()
  .regex(/^\d+(\.\d+)?(Ki|Mi|Gi|Ti|m|k|M|G)?$/, 'a Kubernetes quantity such as 1Gi or 500m');

export const INSTANCE_LABEL = 'INSTANCE_LABEL';
export const DEFAULT_HELP_LABEL = 'Find it here';

export const credentialFieldSchema = z.strictObject({
  key: envName.describe('The env var name'),
  label: z.string().min(1),
  type: z.enum(['text', 'password']),
  required: z.boolean(),
  hint: z.string().min(1).optional(),
  helpUrl: z.url({ protocol: /^https$/ }).optional(),
  helpLabel: z.string().min(1).default(DEFAULT_HELP_LABEL),
});

export const colonyContainerSchema = z.strictObject({
  image: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  /** Static settings of the service. */
  env: z.record(envName, z.string()).default({}),
  /** Credential keys passed to the service from the integration's Secret. */
  secretEnv: z.array(envName).default([]),
  resources: z
    .strictObject({
      requests: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).optional(),
      limits: z.strictObject({ cpu: quantity.optional(), memory: quantity.optional() }).optional(),
    })
    .optional(),
  persistentVolume: z
    .strictObject({
      size: quantity,
      mountPath: z.string().startsWith('/'),
      storageClassName: z.string().min(1).optional(),
    })
    .optional(),
  /** Env var through which enabled agents find the service (its in-cluster URL). */
  urlEnv: envName.optional(),
});

const mcpServerSchema = z.strictObject({
  name: dnsLabel,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(envName, z.string()).default({}),
});

const layers = {
  tools: z
    .strictObject({
      gatewayPlugins: z.array(z.string().min(1)).default([]),
      mcpServers: z.array(mcpServerSchema).default([]),
      sdkExtensions: z.array(z.string().min(1)).default([]),
    })
    .optional(),
  cliInstalls: z
    .strictObject({
      apt: z.array(z.string().regex(/^[a-z0-9][a-z0-9+.-]+$/, 'a Debian package name')).default([]),
      npm: z
        .array(
          z
            .string()
            .regex(
              /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(@[\w.^~<>=-]+)?$/,
              'an npm package spec',
            ),
        )
        .default([]),
      pip: z
        .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*([=<>!~]=?[\w.*]+)?$/, 'a pip requirement'))
        .default([]),
    })
    .optional(),
  credentialFiles: z
    .array(
      z.strictObject({
        path: z.string().startsWith('/'),
        template: z.string().min(1),
        mode: z
          .string()
          .regex(/^0[0-7]{3}$/)
          .default('0600'),
      }),
    )
    .optional(),
  sharedDrive: z
    .strictObject({
      subdirectories: z.array(z.string().regex(/^[a-zA-Z0-9._-]+(\/[a-zA-Z0-9._-]+)*$/)).default([]),
    })
    .optional(),
  database: z
    .strictObject({ migrations: z.array(z.string().regex(/^[\w.-]+\.sql$/, 'a .sql file name')).min(1) })
    .optional(),
  taskTemplates: z
    .array(
      z.strictObject({
        name: dnsLabel,
        title: z.string().min(1),
        prompt: z.string().min(1),
        schedule: z.string().min(1).optional(),
      }),
    )
    .optional(),
  members: z
    .strictObject({
      requiredRoles: z.array(z.string().min(1)).default([]),
      maxAgents: z.number().int().positive().optional(),
      agentOverrides: z.record(z.string(), z.record(z.string(), z.string())).default({}),
    })
    .optional(),
  colonyContainer: colonyContainerSchema.optional(),
};

export const integrationManifestSchema = z
  .strictObject({
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
    dependsOn: z.array(z.string().min(1)).default([]),
    provides: z.array(z.string().min(1)).default([]),
    conflicts: z.array(z.string().min(1)).default([]),
    composedWith: z.array(z.string().min(1)).default([]),
    ...layers,
  })
  .superRefine((m, ctx) => {
    const keys = m.requiredSecrets.map((f) => f.key);
    keys.forEach((key, i) => {
      if (keys.indexOf(key) !== i)
        ctx.addIssue({
          code: 'custom',
          path: ['requiredSecrets', i, 'key'],
          message: `duplicate key ${key}`,
        });
    });
    if (m.multiInstance) {
      const label = m.requiredSecrets.find((f) => f.key === INSTANCE_LABEL);
      if (label?.type !== 'text' || !label.required) {
        ctx.addIssue({
          code: 'custom',
          path: ['requiredSecrets'],
          message: `multiInstance requires a field {key: ${INSTANCE_LABEL}, type: text, required: true}`,
        });
      }
    }
    m.agentEnvVars.forEach((name, i) => {
      if (isReservedEnvKey(name)) {
        ctx.addIssue({ code: 'custom', path: ['agentEnvVars', i], message: `${name} is a reserved key` });
      } else if (!keys.includes(name) || name === INSTANCE_LABEL) {
        ctx.addIssue({
          code: 'custom',
          path: ['agentEnvVars', i],
          message: `${name} is not a key of requiredSecrets`,
        });
      }
    });
    m.colonyContainer?.secretEnv.forEach((name, i) => {
      if (!keys.includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['colonyContainer', 'secretEnv', i],
          message: `${name} is not a key of requiredSecrets`,
        });
      }
    });
    if (m.colonyContainer?.urlEnv && isReservedEnvKey(m.colonyContainer.urlEnv)) {
      ctx.addIssue({
        code: 'custom',
        path: ['colonyContainer', 'urlEnv'],
        message: `${m.colonyContainer.urlEnv} is a reserved key`,
      });
    }
  });

export type IntegrationManifest = z.infer<typeof integrationManifestSchema>;
export type CredentialField = z.infer<typeof credentialFieldSchema>;
export type ColonyContainer = z.infer<typeof colonyContainerSchema>;
