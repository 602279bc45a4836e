// Reads Colony's configuration from the environment, validated by one zod schema.
import { z } from 'zod';
import { VERSION } from '../cluster/version.ts';
import { dnsLabel } from '../integrations/registry/names.ts';

const booleanish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number().int().positive();

/** A JSON object parsed against a schema, every problem reported against the variable itself. */
function jsonOf<T extends z.ZodType>(schema: T, shape: string) {
  return z.string().transform((raw, ctx): z.output<T> => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be a JSON object (${shape})` });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const first = parsed.error.issues[0];
    const where = first?.path.length ? ` at ${first.path.join('.')}` : '';
    ctx.addIssue({ code: 'custom', message: `${first?.message ?? 'invalid'}${where} (${shape})` });
    return z.NEVER;
  });
}

const seccomp = z.strictObject({
  type: z.enum(['RuntimeDefault', 'Localhost', 'Unconfined']),
  localhostProfile: z.string().min(1).optional(),
});
const ids = {
  runAsUser: z.number().int().min(0).optional(),
  runAsGroup: z.number().int().min(0).optional(),
  runAsNonRoot: z.boolean().optional(),
  seccompProfile: seccomp.optional(),
  seLinuxOptions: z.record(z.string(), z.string()).optional(),
  appArmorProfile: z.object({ type: z.string(), localhostProfile: z.string().optional() }).optional(),
};
/** The fields of a container securityContext an admin may set for what Colony adds to pods. */
const containerSecurityContext = z.strictObject({
  ...ids,
  allowPrivilegeEscalation: z.boolean().optional(),
  privileged: z.boolean().optional(),
  readOnlyRootFilesystem: z.boolean().optional(),
  capabilities: z
    .strictObject({ add: z.array(z.string()).optional(), drop: z.array(z.string()).optional() })
    .optional(),
});
const podSecurityContext = z.strictObject({
  ...ids,
  fsGroup: z.number().int().min(0).optional(),
  fsGroupChangePolicy: z.enum(['OnRootMismatch', 'Always']).optional(),
  supplementalGroups: z.array(z.number().int().min(0)).optional(),
});
const containerContextJson = jsonOf(containerSecurityContext, 'a container securityContext');

const imageOverrideMap = z.record(z.string().min(1), z.string().min(1, 'must name an image'));

/**
 * COLONY_IMAGE_OVERRIDES: a JSON object from an image reference a manifest names to the image to run
 * instead (a mirror). Parsed here so every problem is reported against the variable itself.
 */
const imageOverrides = jsonOf(imageOverrideMap, '{"<image>": "<mirror image>"}');

/** One RoleBinding the API makes in each office (offices mode): a ClusterRole for a ServiceAccount. */
export interface OfficeGrant {
  clusterRole: string;
  serviceAccount: { namespace: string; name: string };
}

/** The non-empty entries of a comma-separated variable. */
const commaList = (raw: string): string[] =>
  raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);

const dnsSubdomain = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** COLONY_OFFICE_GRANTS: `<clusterRole>=<namespace>/<serviceAccount>`, comma-separated. */
const officeGrants = z.string().transform((raw, ctx): OfficeGrant[] => {
  const grants: OfficeGrant[] = [];
  for (const entry of commaList(raw)) {
    const m = /^([^=]+)=([^/]+)\/(.+)$/.exec(entry);
    if (!m?.[1] || !m[2] || !m[3] || ![m[1], m[2], m[3]].every((p) => dnsSubdomain.test(p))) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}" is not <clusterRole>=<namespace>/<serviceAccount>`,
      });
      return z.NEVER;
    }
    grants.push({ clusterRole: m[1], serviceAccount: { namespace: m[2], name: m[3] } });
  }
  return grants;
});

/**
 * COLONY_ALLOWED_ORIGINS: the browser origins (`scheme://host[:port]`, as browsers send them in `Origin`)
 * that may use /mcp and the checkout surfaces, comma-separated; `*` allows every origin. Each entry is
 * normalised (lower case, default port dropped) so that it compares byte for byte with what browsers send.
 */
const allowedOrigins = z.string().transform((raw, ctx): string[] => {
  const origins: string[] = [];
  for (const entry of commaList(raw)) {
    if (entry === '*') {
      origins.push(entry);
      continue;
    }
    const url = URL.parse(entry);
    const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    if (!url || !/^https?:$/.test(url.protocol) || !bare) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}" is not an origin (http(s)://host[:port], no path)`,
      });
      return z.NEVER;
    }
    origins.push(url.origin);
  }
  return origins;
});

/** Every environment variable Colony reads, with its default. docs/configuration.md mirrors this table. */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  COLONY_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  COLONY_ENVIRONMENT: z.enum(['production', 'sandbox']).default('production'),
  COLONY_ALLOWED_ORIGINS: allowedOrigins.default([]),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  COLONY_DATABASE_POOL_SIZE: positiveInt.max(1000).default(10),
  COLONY_DATABASE_PREPARED_STATEMENTS: booleanish.default(true),
  COLONY_DATA_DIR: z.string().min(1).default('./data'),
  COLONY_BACKUPS_SWEEP_SECONDS: z.coerce.number().int().min(0).default(300),
  COLONY_BACKUPS_DIR: z.string().min(1).optional(),
  COLONY_BOOTSTRAP_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  COLONY_MANAGER_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  COLONY_CONTROLLER_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  KUBECONFIG: z.string().min(1).optional(),
  COLONY_CONTROLLER_LEASE: z
    .string()
    .regex(/^[a-z0-9-]+\/[a-z0-9.-]+$/, 'must be <namespace>/<lease-name>')
    .optional(),
  COLONY_POLLER_LEASE: z
    .string()
    .regex(/^[a-z0-9-]+\/[a-z0-9.-]+$/, 'must be <namespace>/<lease-name>')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  COLONY_TRUST_PROXY: z.string().optional(),
  COLONY_API_RATE_LIMIT: positiveInt.default(300),
  COLONY_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  COLONY_SIGNIN_RATE_LIMIT: positiveInt.default(10),
  COLONY_SIGNIN_FREE_FAILURES: positiveInt.default(5),
  COLONY_SIGNIN_MAX_DELAY_SECONDS: positiveInt.max(3600).default(300),
  COLONY_RATE_LIMIT_STORE: z.enum(['memory', 'postgres', 'redis']).default('memory'),
  COLONY_RATE_LIMIT_ALGORITHM: z.enum(['fixed', 'sliding']).default('fixed'),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  COLONY_SHARED_STORE_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  COLONY_SKILLS_DIR: z.string().min(1).optional(),
  COLONY_INTEGRATIONS_DIR: z.string().min(1).optional(),
  COLONY_JOB_POLL_MS: positiveInt.default(10_000),
  COLONY_JOB_LEASE_SECONDS: positiveInt.min(3, 'must be at least 3 (seconds)').max(86_400).default(60),
  COLONY_BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  COLONY_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  COLONY_SHUTDOWN_GRACE_MS: positiveInt.default(10_000),
  COLONY_IN_CLUSTER: booleanish.default(false),
  COLONY_RUN_CONTROLLER: booleanish.default(true),
  COLONY_WATCH_NAMESPACE: dnsLabel.optional(),
  COLONY_RBAC_SCOPE: z.enum(['cluster', 'offices']).default('cluster'),
  COLONY_OFFICE_GRANTS: officeGrants.default([]),
  COLONY_CONTROLLER_RESYNC_SECONDS: positiveInt.default(300),
  COLONY_CONTROLLER_WORKERS: positiveInt.max(64).default(2),
  COLONY_CONTROLLER_TRIM_CACHE: booleanish.default(true),
  COLONY_METERING_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  COLONY_CREDENTIAL_CHECKS: booleanish.default(true),
  COLONY_INIT_IMAGE: z.string().min(1).default(`colony-init:${VERSION}`),
  COLONY_INIT_SECURITY_CONTEXT: containerContextJson.optional(),
  COLONY_SERVICE_SECURITY_CONTEXT: containerContextJson.optional(),
  COLONY_SERVICE_POD_SECURITY_CONTEXT: jsonOf(podSecurityContext, 'a pod securityContext').optional(),
  COLONY_IMAGE_OVERRIDES: imageOverrides.default({}),
  COLONY_OFFICE_DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  COLONY_OFFICE_DATABASE_AGENT_HOST: z
    .string()
    .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, 'must be host or host:port')
    .optional(),
  COLONY_OAUTH_CLIENTS: z.string().optional(),
  COLONY_OAUTH_REFRESH_SECONDS: positiveInt.default(300),
  COLONY_CREDENTIAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  COLONY_REVOCATION_CHECK_MS: positiveInt.max(60_000).default(1000),
  COLONY_TASK_SCHEDULER_MS: positiveInt.default(15_000),
  COLONY_CHECKOUT_RATE_LIMIT: positiveInt.default(60),
  COLONY_IDEMPOTENCY_TTL_HOURS: positiveInt.min(24, 'must be at least 24 (hours)').default(24),
  COLONY_CHECKOUT_SWEEP_SECONDS: positiveInt.default(60),
  COLONY_PLAN_END_SWEEP_SECONDS: positiveInt.default(300),
  COLONY_PAYMENT_PROCESSOR: z.enum(['test', 'stripe']).default('test'),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe secret key')
    .optional(),
  COLONY_STRIPE_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  COLONY_PAYMENT_TIMEOUT_SECONDS: positiveInt.max(60).default(10),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/=_]+$/, 'must be a Stripe webhook signing secret (whsec_…)')
    .optional(),
  COLONY_USAGE_REPORT_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  COLONY_STRIPE_METER_EVENT: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be a Stripe meter event name')
    .default('colony_credits'),
  COLONY_UCP_ALLOW_INSECURE_PROFILES: booleanish.default(false),
  COLONY_ORDER_WEBHOOK_TIMEOUT_MS: positiveInt.max(30_000).default(10_000),
  COLONY_ORDER_WEBHOOK_MAX_ATTEMPTS: positiveInt.max(30).default(16),
  COLONY_EMBEDDINGS_URL: z.url({ protocol: /^https?$/ }).optional(),
  COLONY_EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  COLONY_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  COLONY_ANSWER_MODEL_URL: z.url({ protocol: /^https?$/ }).optional(),
  COLONY_ANSWER_MODEL: z.string().min(1).optional(),
  COLONY_ANSWER_MODEL_API_KEY: z.string().min(1).optional(),
  COLONY_ANSWER_MODEL_TIMEOUT_MS: positiveInt.max(300_000).default(20_000),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /**
   * Browser origins /mcp and the checkout surfaces accept (an `Origin` header not listed is refused on
   * /mcp, and gets no CORS headers): the base URL's own origin and COLONY_ALLOWED_ORIGINS; `*` is any.
   */
  allowedOrigins: readonly string[];
  environment: 'production' | 'sandbox';
  /** PostgreSQL: `maxConnections` is this replica's pool; every replica opens its own. */
  database:
    | { kind: 'sqlite'; file: string }
    | { kind: 'postgres'; url: string; maxConnections: number; preparedStatements: boolean };
  dataDir: string;
  /**
   * Backups (api/backups): how often the schedule sweep runs (0 turns scheduled snapshots off), and
   * the blob store's folder, which every API replica must share.
   */
  backups: { sweepSeconds: number; dir: string };
  bootstrapToken: string | undefined;
  managerPort: number | undefined;
  controllerPort: number;
  kubernetes: {
    kubeconfig: string | undefined;
    inCluster: boolean;
    controllerLease: string | undefined;
    /** With a cluster: only the holder of this Lease runs the cluster-wide pollers. */
    pollerLease: string | undefined;
    /** `npm start` also runs the controller in-process when a cluster is configured. */
    runController: boolean;
    /** Namespaced mode: the controller watches only this namespace. */
    watchNamespace: string | undefined;
    /**
     * `offices`: Colony holds namespaced rights only in office namespaces, granted by the RoleBindings
     * the API makes when it creates an office; the controller watches office namespaces one by one.
     */
    rbacScope: 'cluster' | 'offices';
    /** The RoleBindings the API makes in every office it creates (offices mode). */
    officeGrants: OfficeGrant[];
    /** Every cached object is reconciled again this often, catching anything a watch missed. */
    resyncSeconds: number;
    /** Concurrent reconciles per queue. */
    workers: number;
    /** Cache only the fields the reconcilers read; off only to measure what trimming saves. */
    trimCache: boolean;
    /** How often the controller counts agent-hours into the offices' usage ledgers (0: never). */
    meteringSeconds: number;
    /** Image of the agents' colony-init container (shared-drive folders, cliInstalls). */
    initImage: string;
    /** securityContexts of what Colony adds to pods; unset parts keep the restricted defaults. */
    podSecurity: {
      initContainer?: z.output<typeof containerSecurityContext> | undefined;
      serviceContainer?: z.output<typeof containerSecurityContext> | undefined;
      servicePod?: z.output<typeof podSecurityContext> | undefined;
    };
    /** Run the credentialCheck layer's requests (tests turn them off: no provider is reachable there). */
    credentialChecks: boolean;
    /** Image a per-office service runs instead of the one its manifest names (mirrors, air gaps). */
    imageOverrides: Readonly<Record<string, string>>;
    /** The database layer's PostgreSQL server (admin URL); the layer is off without it. */
    officeDatabaseUrl: string | undefined;
    officeDatabaseAgentHost: string | undefined;
  };
  /** OAuth clients per integration id for the Connect flow (COLONY_OAUTH_CLIENTS, JSON). */
  oauthClients: string | undefined;
  /** Refresh OAuth access tokens this many seconds before they expire. */
  oauthRefreshSeconds: number;
  /** How often the task scheduler looks for due recurring tasks. */
  taskSchedulerMs: number;
  /**
   * Verified bearer credentials are reused for ttlMs (0: never); a revocation anywhere reaches this
   * replica within revocationCheckMs (api/identity/credential-cache.ts).
   */
  credentialCache: { ttlMs: number; revocationCheckMs: number };
  logLevel: Env['LOG_LEVEL'];
  trustProxy: boolean | string | ((address: string, hop: number) => boolean);
  rateLimit: {
    apiPerWindow: number;
    /**
     * Sign-up attempts per minute per client address and per email; wrong sign-in passwords per
     * minute per client address, whatever the account.
     */
    signInPerMinute: number;
    /** Wrong passwords one address may try for one account before each further try waits. */
    signInFreeFailures: number;
    /** The cap of that progressive wait. */
    signInMaxDelaySeconds: number;
    windowSeconds: number;
    store: 'memory' | 'postgres' | 'redis';
    /** `sliding` also weighs the previous window, so no window boundary lets twice the limit through. */
    algorithm: 'fixed' | 'sliding';
    redisUrl: string | undefined;
    /** Longest a shared store (Redis, PostgreSQL) may take to count a request before it is let through. */
    storeTimeoutMs: number;
  };
  skillsDir: string;
  integrationsDir: string;
  jobPollMs: number;
  /** How long a claimed job stays its runner's; a crashed runner's job is claimed again after it. */
  jobLeaseMs: number;
  bodyLimitBytes: number;
  /** How long a client may take to send a whole request (headers and body); 0 never times out. */
  requestTimeoutMs: number;
  shutdownGraceMs: number;
  commerce: {
    /** Requests per window per client address, ACP and UCP together. */
    checkoutPerWindow: number;
    idempotencyTtlHours: number;
    sweepSeconds: number;
    /** How often the test processor's cancels that fell due are written to Colony's record. */
    planEndSweepSeconds: number;
    processor: 'test' | 'stripe';
    stripeSecretKey: string | undefined;
    /** Another Stripe API address (stripe-mock in tests). */
    stripeApiUrl: string | undefined;
    /** How long one call to the processor may take; a timed-out call is retried once (idempotency keys). */
    processorTimeoutMs: number;
    /** Signing secret of the Stripe webhook endpoint; unset, the endpoint answers 503. */
    stripeWebhookSecret: string | undefined;
    /** How often the poller leader reports the offices' metered usage to the processor (0: never). */
    usageReportSeconds: number;
    /** The `event_name` of the Stripe billing meter that usage is reported to. */
    stripeMeterEvent: string;
    /** Local runs and tests: UCP agent profiles over http and on private addresses. */
    allowInsecureProfiles: boolean;
    /** ACP order webhooks: one attempt's bound, and how many attempts before an event is given up. */
    orderWebhooks: { timeoutMs: number; maxAttempts: number };
  };
  /** Vector retrieval for the memory: an OpenAI-compatible embeddings API, when configured. */
  embeddings: { url: string; model: string; apiKey: string | undefined } | undefined;
  /** cortex_ask's writer: an OpenAI-compatible chat model, when configured (else extractive answers). */
  answerModel: { url: string; model: string; apiKey: string | undefined; timeoutMs: number } | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment into a Config; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.COLONY_RATE_LIMIT_STORE === 'redis' && !e.REDIS_URL) {
    throw new ConfigError('invalid configuration:\n  REDIS_URL: required when COLONY_RATE_LIMIT_STORE=redis');
  }
  if (e.COLONY_RATE_LIMIT_STORE === 'postgres' && !e.DATABASE_URL) {
    throw new ConfigError(
      'invalid configuration:\n  DATABASE_URL: required when COLONY_RATE_LIMIT_STORE=postgres',
    );
  }
  checkCommerce(e);
  checkRbacScope(e);
  if (e.COLONY_ANSWER_MODEL_URL && !e.COLONY_ANSWER_MODEL) {
    throw new ConfigError(
      'invalid configuration:\n  COLONY_ANSWER_MODEL: required when COLONY_ANSWER_MODEL_URL is set (the chat model to ask)',
    );
  }
  const baseUrl = (e.COLONY_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    allowedOrigins: [...new Set([new URL(baseUrl).origin, ...e.COLONY_ALLOWED_ORIGINS])],
    environment: e.COLONY_ENVIRONMENT,
    database: e.DATABASE_URL
      ? {
          kind: 'postgres',
          url: e.DATABASE_URL,
          maxConnections: e.COLONY_DATABASE_POOL_SIZE,
          preparedStatements: e.COLONY_DATABASE_PREPARED_STATEMENTS,
        }
      : { kind: 'sqlite', file: `${e.COLONY_DATA_DIR.replace(/\/+$/, '')}/colony.db` },
    dataDir: e.COLONY_DATA_DIR,
    backups: {
      sweepSeconds: e.COLONY_BACKUPS_SWEEP_SECONDS,
      dir: e.COLONY_BACKUPS_DIR ?? `${e.COLONY_DATA_DIR.replace(/\/+$/, '')}/backups`,
    },
    bootstrapToken: e.COLONY_BOOTSTRAP_TOKEN,
    managerPort: e.COLONY_MANAGER_PORT,
    controllerPort: e.COLONY_CONTROLLER_PORT,
    kubernetes: {
      kubeconfig: e.KUBECONFIG,
      inCluster: e.COLONY_IN_CLUSTER,
      controllerLease: e.COLONY_CONTROLLER_LEASE,
      pollerLease: e.COLONY_POLLER_LEASE,
      runController: e.COLONY_RUN_CONTROLLER,
      watchNamespace: e.COLONY_WATCH_NAMESPACE,
      rbacScope: e.COLONY_RBAC_SCOPE,
      officeGrants: e.COLONY_OFFICE_GRANTS,
      resyncSeconds: e.COLONY_CONTROLLER_RESYNC_SECONDS,
      workers: e.COLONY_CONTROLLER_WORKERS,
      trimCache: e.COLONY_CONTROLLER_TRIM_CACHE,
      meteringSeconds: e.COLONY_METERING_SECONDS,
      initImage: e.COLONY_INIT_IMAGE,
      podSecurity: {
        initContainer: e.COLONY_INIT_SECURITY_CONTEXT,
        serviceContainer: e.COLONY_SERVICE_SECURITY_CONTEXT,
        servicePod: e.COLONY_SERVICE_POD_SECURITY_CONTEXT,
      },
      credentialChecks: e.COLONY_CREDENTIAL_CHECKS,
      imageOverrides: e.COLONY_IMAGE_OVERRIDES,
      officeDatabaseUrl: e.COLONY_OFFICE_DATABASE_URL,
      officeDatabaseAgentHost: e.COLONY_OFFICE_DATABASE_AGENT_HOST,
    },
    oauthClients: e.COLONY_OAUTH_CLIENTS,
    oauthRefreshSeconds: e.COLONY_OAUTH_REFRESH_SECONDS,
    taskSchedulerMs: e.COLONY_TASK_SCHEDULER_MS,
    credentialCache: {
      ttlMs: e.COLONY_CREDENTIAL_CACHE_SECONDS * 1000,
      revocationCheckMs: e.COLONY_REVOCATION_CHECK_MS,
    },
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.COLONY_TRUST_PROXY),
    rateLimit: {
      apiPerWindow: e.COLONY_API_RATE_LIMIT,
      signInPerMinute: e.COLONY_SIGNIN_RATE_LIMIT,
      signInFreeFailures: e.COLONY_SIGNIN_FREE_FAILURES,
      signInMaxDelaySeconds: e.COLONY_SIGNIN_MAX_DELAY_SECONDS,
      windowSeconds: e.COLONY_RATE_LIMIT_WINDOW_SECONDS,
      store: e.COLONY_RATE_LIMIT_STORE,
      algorithm: e.COLONY_RATE_LIMIT_ALGORITHM,
      redisUrl: e.REDIS_URL,
      storeTimeoutMs: e.COLONY_SHARED_STORE_TIMEOUT_MS,
    },
    skillsDir: e.COLONY_SKILLS_DIR ?? new URL('../skills', import.meta.url).pathname,
    integrationsDir: e.COLONY_INTEGRATIONS_DIR ?? new URL('../integrations', import.meta.url).pathname,
    jobPollMs: e.COLONY_JOB_POLL_MS,
    jobLeaseMs: e.COLONY_JOB_LEASE_SECONDS * 1000,
    bodyLimitBytes: e.COLONY_BODY_LIMIT_BYTES,
    requestTimeoutMs: e.COLONY_REQUEST_TIMEOUT_SECONDS * 1000,
    shutdownGraceMs: e.COLONY_SHUTDOWN_GRACE_MS,
    commerce: {
      checkoutPerWindow: e.COLONY_CHECKOUT_RATE_LIMIT,
      idempotencyTtlHours: e.COLONY_IDEMPOTENCY_TTL_HOURS,
      sweepSeconds: e.COLONY_CHECKOUT_SWEEP_SECONDS,
      planEndSweepSeconds: e.COLONY_PLAN_END_SWEEP_SECONDS,
      processor: e.COLONY_PAYMENT_PROCESSOR,
      stripeSecretKey: e.STRIPE_SECRET_KEY,
      stripeApiUrl: e.COLONY_STRIPE_API_URL,
      processorTimeoutMs: e.COLONY_PAYMENT_TIMEOUT_SECONDS * 1000,
      stripeWebhookSecret: e.STRIPE_WEBHOOK_SECRET,
      usageReportSeconds: e.COLONY_USAGE_REPORT_SECONDS,
      stripeMeterEvent: e.COLONY_STRIPE_METER_EVENT,
      allowInsecureProfiles: e.COLONY_UCP_ALLOW_INSECURE_PROFILES,
      orderWebhooks: {
        timeoutMs: e.COLONY_ORDER_WEBHOOK_TIMEOUT_MS,
        maxAttempts: e.COLONY_ORDER_WEBHOOK_MAX_ATTEMPTS,
      },
    },
    embeddings: e.COLONY_EMBEDDINGS_URL
      ? {
          url: e.COLONY_EMBEDDINGS_URL.replace(/\/+$/, ''),
          model: e.COLONY_EMBEDDINGS_MODEL,
          apiKey: e.COLONY_EMBEDDINGS_API_KEY,
        }
      : undefined,
    answerModel:
      e.COLONY_ANSWER_MODEL_URL && e.COLONY_ANSWER_MODEL
        ? {
            url: e.COLONY_ANSWER_MODEL_URL.replace(/\/+$/, ''),
            model: e.COLONY_ANSWER_MODEL,
            apiKey: e.COLONY_ANSWER_MODEL_API_KEY,
            timeoutMs: e.COLONY_ANSWER_MODEL_TIMEOUT_MS,
          }
        : undefined,
  };
}

// The Stripe processor needs a key, and a sandbox must never hold a live one (no billing side effects).
function checkCommerce(e: Env): void {
  if (e.COLONY_PAYMENT_PROCESSOR === 'stripe' && !e.STRIPE_SECRET_KEY) {
    throw new ConfigError(
      'invalid configuration:\n  STRIPE_SECRET_KEY: required when COLONY_PAYMENT_PROCESSOR=stripe',
    );
  }
  if (e.COLONY_ENVIRONMENT === 'sandbox' && /^(sk|rk)_live_/.test(e.STRIPE_SECRET_KEY ?? '')) {
    throw new ConfigError(
      'invalid configuration:\n  STRIPE_SECRET_KEY: a sandbox runs Stripe in test mode only; use a test key (sk_test_…)',
    );
  }
}

// Offices mode confines Colony to the offices it grants itself access to: it needs to know the grants,
// and one watched namespace would contradict it.
function checkRbacScope(e: Env): void {
  if (e.COLONY_RBAC_SCOPE !== 'offices') return;
  if (!e.COLONY_OFFICE_GRANTS.length)
    throw new ConfigError(
      'invalid configuration:\n  COLONY_OFFICE_GRANTS: required when COLONY_RBAC_SCOPE=offices (the RoleBindings to make in each office)',
    );
  if (e.COLONY_WATCH_NAMESPACE)
    throw new ConfigError(
      'invalid configuration:\n  COLONY_WATCH_NAMESPACE: leave it unset when COLONY_RBAC_SCOPE=offices (that mode watches every office namespace)',
    );
}

// true, a hop count (trust that many proxies in front) or a comma list of addresses/CIDRs.
function parseTrustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    return (_address, hop) => hop < hops;
  }
  return raw;
}

/** For entry points: the configuration, or a message naming the bad variables and exit code 78. */
export function loadConfigOrExit(program: string, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${program}: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}
