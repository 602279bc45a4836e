// The nine manifest v2 layers (spec 2.5), each optional. Strict objects: an unknown key is an error
// that names its path. Rules that need the whole manifest live in manifest-schema.ts.
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { dnsLabel } from './names.ts';

export const envName = z
  .string()
  .regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_SNAKE_CASE environment variable name');
export const quantity = z
  .string()
  .regex(/^\d+(\.\d+)?(Ki|Mi|Gi|Ti|m|k|M|G)?$/, 'a Kubernetes quantity such as 1Gi or 500m');

/** Package names are checked here and quoted again when the install script is rendered. */
export const aptPackage = z
  .string()
  .regex(/^[a-z0-9][a-z0-9+.-]+(=[A-Za-z0-9.+:~-]+)?$/, 'a Debian package name, optionally =version');
export const npmPackage = z
  .string()
  .regex(
    /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*(@[\w.^~<>=-]+)?$/,
    'an npm package spec such as name or @scope/name@1.2.3',
  );
export const pipPackage = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?((==|>=|<=|~=|!=|<|>)[\w.*+-]+)?$/,
    'a pip requirement',
  );

const absolutePath = z
  .string()
  .regex(/^(\/[A-Za-z0-9._@+-]+)+$/, 'an absolute path of plain segments')
  .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), 'must not contain . or .. segments')
  .refine(
    (p) => !/^\/(proc|sys|dev|run|var\/run|etc\/colony|opt\/colony)(\/|$)/.test(p),
    'must not be under /proc, /sys, /dev, /run or Colony’s own /etc/colony and /opt/colony',
  );

const mcpServerSchema = z.strictObject({
  name: dnsLabel,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Values are literal, or `${NAME}` references to variables injected into the agent (never secrets inline). */
  env: z.record(envName, z.string()).default({}),
});

const toolsLayer = z.strictObject({
  gatewayPlugins: z.array(npmPackage).default([]),
  mcpServers: z.array(mcpServerSchema).default([]),
  sdkExtensions: z.array(npmPackage).default([]),
});

const binarySchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'a plain file name'),
  url: z.url({ protocol: /^https$/ }),
  sha256: z.string().regex(/^[a-f0-9]{64}$/, 'the lowercase hex SHA-256 of the file'),
});

const cliInstallsLayer = z.strictObject({
  apt: z.array(aptPackage).default([]),
  npm: z.array(npmPackage).default([]),
  pip: z.array(pipPackage).default([]),
  binaries: z.array(binarySchema).default([]),
});

const credentialFileSchema = z.strictObject({
  path: absolutePath,
  /** Handlebars over the credential keys, `officeId` and `instanceLabel`; strict. */
  template: z.string().min(1),
  mode: z
    .string()
    .regex(/^0[0-7]{3}$/, 'an octal file mode such as 0600')
    .default('0600'),
});

const relativeDir = z
  .string()
  .regex(/^[a-zA-Z0-9._-]+(\/[a-zA-Z0-9._-]+)*$/, 'a relative folder path')
  .refine((p) => !p.split('/').some((s) => s === '.' || s === '..'), 'must not contain . or .. segments');

const sharedDriveLayer = z.strictObject({
  subdirectories: z.array(relativeDir).default([]),
  size: quantity.default('1Gi'),
});

const databaseLayer = z.strictObject({
  migrations: z.array(z.string().regex(/^[\w.-]+\.sql$/, 'a .sql file name beside the manifest')).min(1),
  /** What each enabled agent may do on the integration's tables. */
  access: z.enum(['readwrite', 'readonly']).default('readwrite'),
  /** Env var carrying the agent's connection URL; defaults to <ID>_DATABASE_URL. */
  urlEnv: envName.optional(),
});

export const cronSchedule = z.string().superRefine((value, ctx) => {
  if (value.trim().split(/\s+/).length !== 5) {
    ctx.addIssue({
      code: 'custom',
      message: 'a cron schedule has five fields: minute hour day month weekday',
    });
    return;
  }
  try {
    CronExpressionParser.parse(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not a valid cron schedule: ${(err as Error).message}` });
  }
});

const timezone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'an IANA time zone such as Europe/Paris');

const taskTemplateSchema = z.strictObject({
  name: dnsLabel,
  title: z.string().min(1).max(200),
  prompt: z.string().min(1),
  /** Absent: created once each time the integration is enabled. Present: recurring. */
  schedule: cronSchedule.optional(),
  timezone: timezone.default('UTC'),
});

const agentConfigSchema = z.strictObject({
  key: envName,
  label: z.string().min(1),
  default: z.string().optional(),
  pattern: z
    .string()
    .refine((p) => {
      try {
        new RegExp(p, 'u');
        return true;
      } catch {
        return false;
      }
    }, 'a valid regular expression')
    .optional(),
});

const membersLayer = z.strictObject({
  /** An agent must hold every one of these roles (its workload's colony.ai/roles label). */
  requiredRoles: z.array(dnsLabel).default([]),
  /** At most this many agents may have the integration (or one instance of it) enabled. */
  maxAgents: z.number().int().positive().optional(),
  /** Settings an operator may override per agent when enabling; injected as plain env values. */
  agentConfig: z.array(agentConfigSchema).default([]),
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

/** The ninth layer: a request that proves the saved credentials work, like n8n's credential test. */
const credentialCheckLayer = z.strictObject({
  method: z.enum(['GET', 'POST', 'HEAD']).default('GET'),
  /** Template; must render to https (http only on loopback, for local providers). */
  url: z.string().min(1),
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name'), z.string()).default({}),
  body: z.string().optional(),
  /** Statuses that mean the credentials work. */
  expectStatus: z.array(z.number().int().min(100).max(599)).min(1).default([200]),
  timeoutSeconds: z.number().int().min(1).max(30).default(10),
});

export const layers = {
  tools: toolsLayer.optional(),
  cliInstalls: cliInstallsLayer.optional(),
  credentialFiles: z.array(credentialFileSchema).optional(),
  sharedDrive: sharedDriveLayer.optional(),
  database: databaseLayer.optional(),
  taskTemplates: z.array(taskTemplateSchema).optional(),
  members: membersLayer.optional(),
  colonyContainer: colonyContainerSchema.optional(),
  credentialCheck: credentialCheckLayer.optional(),
};

export const LAYER_NAMES = Object.keys(layers) as (keyof typeof layers)[];

/** The Connect flow's provider: where to send the user and where to exchange and refresh codes. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** HTTPS, or plain HTTP on a loopback host only (a provider on the same machine, as in development). */
const providerUrl = z
  .url({ protocol: /^https?$/ })
  .refine((u) => u.startsWith('https:') || LOOPBACK.has(new URL(u).hostname), {
    message: 'must be https (plain http only on a loopback host)',
  });

export const oauthSchema = z.strictObject({
  /** The issuer the provider names in its responses; defaults to the authorization URL's origin. */
  issuer: providerUrl.optional(),
  authorizationUrl: providerUrl,
  tokenUrl: providerUrl,
  scopes: z.array(z.string().min(1)).default([]),
  /** Extra authorization parameters, e.g. access_type=offline for Google. */
  authorizationParams: z.record(z.string(), z.string()).default({}),
  accessTokenKey: envName,
  refreshTokenKey: envName,
});

export type CredentialFile = z.infer<typeof credentialFileSchema>;
export type TaskTemplate = z.infer<typeof taskTemplateSchema>;
export type McpServer = z.infer<typeof mcpServerSchema>;
