// buildServer(config): wires storage, services and one plugin per surface into a Fastify instance.

import { randomBytes } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import type { KubeConfig } from '@kubernetes/client-node';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { loadKubeConfig } from '../cluster/kube-config.ts';
import { VERSION } from '../cluster/version.ts';
import { loadRegistry } from '../integrations/registry/load-registry.ts';
import { orderWebhookHandler } from './acp/webhooks/deliver.ts';
import { acpOrderEvent } from './acp/webhooks/order-event.ts';
import type { AppServices } from './app-services.ts';
import { openStorage, type Storage } from './app-storage.ts';
import { BackupServices } from './backups/backup-services.ts';
import { buildCommerce } from './commerce/commerce-services.ts';
import { Entitlements } from './commerce/entitlements/entitlements.ts';
import { ORDER_WEBHOOK_JOB } from './commerce/order-webhooks/order-events.ts';
import { buildUsage } from './commerce/usage/usage-services.ts';
import type { Config } from './config.ts';
import { ConnectService } from './connect/connect-service.ts';
import { parseOAuthClients } from './connect/oauth-clients.ts';
import { TokenRefresher } from './connect/token-refresher.ts';
import { withStandardProblems } from './discovery/openapi-errors.ts';
import { withoutTrailingSlashes } from './discovery/openapi-paths.ts';
import { withTextWithoutNul } from './discovery/openapi-text.ts';
import { type JobHandler, JobRunner } from './domain/jobs/job-runner.ts';
import { buildJobHandlers } from './domain/jobs/job-types.ts';
import { buildCatalog } from './domain/pricing/catalog.ts';
import { loadPriceList } from './domain/pricing/price-list.ts';
import { loadSkillsDir } from './domain/skills/load-skills-dir.ts';
import { breakerProbe } from './domain/status/breaker-probe.ts';
import {
  controllerLeaseProbe,
  kubernetesApiProbe,
  pollerLeaseProbe,
} from './domain/status/kubernetes-probes.ts';
import type { Probe } from './domain/status/probes.ts';
import { sharedStoreProbe } from './domain/status/shared-store-probe.ts';
import { frameworkAnswers } from './framework-answers.ts';
import { createIdentityServices, type ModelBreakers } from './identity/identity-services.ts';
import { colonyResources, type ResourceServerSpec } from './identity/oauth/resources.ts';
import { lazyChildLoggerFactory } from './observability/lazy-child-logger.ts';
import { stdoutDestination } from './observability/log-destination.ts';
import { createMetrics, instrumentRequests, type Metrics } from './observability/metrics.ts';
import { OneLinePerRequest, redactUrl } from './observability/request-log.ts';
import { buildManagerServer } from './office/manager-server.ts';
import { OfficeCluster } from './office/office-cluster.ts';
import { OfficeCreation } from './office/office-creation.ts';
import { TaskScheduler } from './office/task-scheduler.ts';
import { mainSurfaces, managerSurfaces } from './routes.ts';
import { answerBrowsers } from './shared/browser-access.ts';
import { circuitBreaker } from './shared/circuit-breaker.ts';
import { bootstrapTokenVerifier, type CredentialVerifier } from './shared/identity.ts';
import { hostileRequestError, installInputGuards, slowClientOptions } from './shared/input-guards.ts';
import { jsonSerializerCompiler } from './shared/json-serializer.ts';
import { mountAll } from './shared/mount.ts';
import { type Poller, PollerGate } from './shared/poller-gate.ts';
import { ProblemError } from './shared/problem.ts';
import { validatorCompiler } from './shared/query-validator.ts';
import { GuardedCounterStore, type SharedCounterStore } from './shared/rate-limit/guarded-store.ts';
import { MemoryCounterStore } from './shared/rate-limit/memory-store.ts';
import { PostgresCounterStore } from './shared/rate-limit/postgres-store.ts';
import { type CounterStore, RateLimiter } from './shared/rate-limit/rate-limiter.ts';
import { RedisCounterStore } from './shared/rate-limit/redis-store.ts';
import { storeFor, type WindowPairStore } from './shared/rate-limit/sliding-window.ts';

/** A shared store that can count by either algorithm. */
type SharedWindowStore = SharedCounterStore & WindowPairStore;

import { requestIdFrom } from './shared/request-id.ts';

export interface BuildOptions {
  /** Use this storage instead of opening the configured one (the caller then closes it). */
  storage?: Storage;
  /** Validate every response against its zod schema (tests turn this on). */
  validateResponses?: boolean;
  /** Start the job runner when the server is ready (default true). */
  runJobs?: boolean;
  now?: () => number;
  logger?: FastifyServerOptions['logger'];
  /** Install the input guards (api/shared/input-guards.ts); only the bench turns them off, to price them. */
  inputGuards?: boolean;
  /** Runs the cluster-wide pollers while open; main/ closes it on replicas that lose the poller Lease. */
  pollerGate?: PollerGate;
}

/** pino's options; lines go to stdout asynchronously (api/observability/log-destination.ts). */
export function loggerOptions(
  config: Config,
  stream: { write(line: string): unknown } = stdoutDestination(),
): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    stream,
    redact: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'],
    serializers: {
      req: (req: { method: string; url: string; ip?: string; id?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
  };
}

/** The configured shared counter store; undefined means in-process counters (one replica). */
function sharedCounterStore(config: Config, storage: Storage): SharedWindowStore | undefined {
  const { store, redisUrl, storeTimeoutMs } = config.rateLimit;
  if (store === 'redis') return new RedisCounterStore(redisUrl ?? '', { timeoutMs: storeTimeoutMs });
  if (store === 'postgres') return new PostgresCounterStore(storage.rateLimitCounters);
  return undefined;
}

/**
 * A shared store is bounded by COLONY_SHARED_STORE_TIMEOUT_MS and watched: its outages are logged
 * once each way and counted in metrics, and the limiter lets requests through while it lasts.
 */
function guardStore(
  config: Config,
  shared: SharedWindowStore,
  metrics: Metrics,
  log: FastifyBaseLogger,
  now: () => number,
) {
  const up = metrics.dependencyUp.labels(shared.name);
  up.set(1);
  return new GuardedCounterStore(shared, {
    timeoutMs: config.rateLimit.storeTimeoutMs,
    // Hits are counted by the configured algorithm; health checks go to the store itself.
    counter: storeFor(shared, config.rateLimit.algorithm, now),
    onChange: (health) => {
      up.set(health.up ? 1 : 0);
      if (health.up) log.info({ store: shared.name }, 'rate-limit store answers again; limits enforced');
      else
        log.warn(
          { store: shared.name, error: health.error },
          'rate-limit store failing; requests are let through without rate limits until it answers',
        );
    },
    onFailure: (bucket) => metrics.rateLimitFailOpen.labels(bucket).inc(),
  });
}

function buildProbes(
  config: Config,
  storage: Storage,
  startedAt: number,
  kc: KubeConfig | undefined,
  sharedStore: GuardedCounterStore | undefined,
  breakers: ModelBreakers,
): () => Probe[] {
  const probes: Probe[] = [
    {
      name: 'api',
      description: 'Colony HTTP API',
      check: async () => ({
        detail: `up ${Math.round((Date.now() - startedAt) / 1000)}s, version ${VERSION}`,
      }),
    },
    {
      name: 'database',
      description: storage.kind === 'postgres' ? 'PostgreSQL (API state)' : 'Embedded SQLite (API state)',
      check: async () => ({ detail: `${storage.kind} round trip ${(await storage.ping()).toFixed(2)} ms` }),
    },
  ];
  if (sharedStore) probes.push(sharedStoreProbe(sharedStore));
  const models = [
    [
      'embeddings',
      'Embeddings API (vector recall)',
      breakers.embeddings,
      'memories are stored without vectors',
    ],
    [
      'answer-model',
      'Chat model (cortex_ask answers)',
      breakers.answerModel,
      'cortex_ask answers extractively',
    ],
  ] as const;
  for (const [name, description, breaker, meanwhile] of models)
    if (breaker) probes.push(breakerProbe({ name, description }, breaker, meanwhile));
  if (kc) {
    probes.push(kubernetesApiProbe(kc));
    if (config.kubernetes.controllerLease)
      probes.push(controllerLeaseProbe(kc, config.kubernetes.controllerLease));
    if (config.kubernetes.pollerLease) probes.push(pollerLeaseProbe(kc, config.kubernetes.pollerLease));
  }
  return () => probes;
}

/** The model APIs' breakers, watched: an open circuit shows on the status page and in metrics. */
function modelBreakers(config: Config, metrics: Metrics): ModelBreakers {
  const watched = (dependency: string) => {
    const up = metrics.dependencyUp.labels(dependency);
    up.set(1);
    return circuitBreaker({ onOpenChange: (open) => up.set(open ? 0 : 1) });
  };
  return {
    ...(config.embeddings ? { embeddings: watched('embeddings') } : {}),
    ...(config.answerModel ? { answerModel: watched('answer-model') } : {}),
  };
}

/** The PostgreSQL counters' purge is cluster-wide work; Redis expires its own keys. */
const storePollers = (shared: SharedWindowStore | undefined): Poller[] =>
  shared instanceof PostgresCounterStore ? [shared.purger()] : [];

function exportLeadership(pollers: PollerGate, metrics: Metrics): void {
  const show = (leading: boolean) => metrics.pollerLeader.set(leading ? 1 : 0);
  show(pollers.leading);
  pollers.onChange(show);
}

/**
 * The job runner runs on every replica (claims spread the work); the cluster-wide pollers follow
 * the gate. `always` pollers run even when the job runner is off (tests turn it off).
 */
function backgroundWork(o: {
  runJobs: boolean | undefined;
  jobRunner: JobRunner;
  pollers: PollerGate;
  backups: BackupServices;
  scheduled: Poller[];
  always: Poller[];
}) {
  const detachers = o.always.map((p) => o.pollers.attach(p));
  return {
    start: async () => {
      if (o.runJobs === false) return;
      o.jobRunner.start();
      detachers.push(...o.scheduled.map((p) => o.pollers.attach(p)));
      await o.backups.startSweeps();
    },
    stop: async () => {
      await o.jobRunner.stop();
      for (const detach of detachers) await detach();
    },
  };
}

const QUIET_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

export async function buildServer(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const now = opts.now ?? Date.now;
  const answers = frameworkAnswers(config.baseUrl);
  const listenerOptions = {
    genReqId: requestIdFrom,
    childLoggerFactory: lazyChildLoggerFactory,
    logController: new OneLinePerRequest({
      requestIdLogLabel: 'requestId',
      // Probes and scrapes arrive every few seconds; logging them would drown the real traffic.
      disableRequestLogging: (request) => QUIET_PATHS.has(request.url),
      // With the server's own logger, request lines skip pino and join stdout's batch directly.
      requestLines: opts.logger === undefined ? stdoutDestination() : undefined,
    }),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    frameworkErrors: answers.frameworkErrors,
    clientErrorHandler: answers.clientErrorHandler,
    // Requests that arrive while closing are answered by answers.install's hook, in the surface's format.
    return503OnClosing: false,
    ...slowClientOptions(config.requestTimeoutMs),
  } satisfies FastifyServerOptions;
  const app = Fastify({ logger: opts.logger ?? loggerOptions(config), ...listenerOptions });
  const isClosing = answers.install(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler(opts.validateResponses === true));

  const storage = opts.storage ?? (await openStorage(config.database));
  const skills = loadSkillsDir(config.skillsDir, config.baseUrl);
  await storage.skills.replaceAll(skills, now());

  const prices = loadPriceList();
  const entitlements = new Entitlements({ storage, prices, baseUrl: config.baseUrl });
  const metrics = createMetrics();
  const registry = loadRegistry(config.integrationsDir);
  const k = config.kubernetes;
  const kc = k.kubeconfig || k.inCluster ? loadKubeConfig(k) : undefined;
  const pollers = opts.pollerGate ?? new PollerGate(true);
  exportLeadership(pollers, metrics);
  const shared = sharedCounterStore(config, storage);
  const sharedStore = shared && guardStore(config, shared, metrics, app.log, now);
  await sharedStore?.open();
  const memory = new MemoryCounterStore();
  const store: CounterStore = sharedStore ?? storeFor(memory, config.rateLimit.algorithm, now);
  // The sign-in throttle's counters are tries and times, not a limit: always exact windows.
  const exactStore: CounterStore = sharedStore?.exact() ?? memory;
  const breakers = modelBreakers(config, metrics);
  const probes = buildProbes(config, storage, now(), kc, sharedStore, breakers);
  const backups = new BackupServices({
    snapshots: storage.snapshots,
    jobs: storage.jobs,
    blobDir: config.backups.dir,
    kubeConfig: kc,
    officeDatabaseUrl: config.kubernetes.officeDatabaseUrl,
    sweepMs: config.backups.sweepSeconds * 1000,
    watchNamespace: k.watchNamespace,
    schedulesAllowed: (officeId) => entitlements.allows(officeId, 'backups'),
    now,
  });
  const jobHandlers = {
    ...buildJobHandlers({ storage, skillsDir: config.skillsDir, baseUrl: config.baseUrl, probes, now }),
    ...backups.jobHandlers,
    [ORDER_WEBHOOK_JOB]: orderWebhookHandler({
      platforms: storage.agentPlatforms,
      ...config.commerce.orderWebhooks,
      now,
    }) as JobHandler<never>,
  };
  const jobRunner = new JobRunner({
    jobs: storage.jobs,
    handlers: jobHandlers,
    log: app.log,
    pollMs: config.jobPollMs,
    leaseMs: config.jobLeaseMs,
    now,
    onOutcome: (type, outcome) => metrics.jobOutcomes.labels(type, outcome).inc(),
  });
  const identity = await createIdentityServices({
    ...{ config, storage, counterStore: store, exactCounterStore: exactStore },
    ...{ now, log: app.log, breakers },
  });
  // The bootstrap token and API keys reach every resource; OAuth access tokens only their audience.
  const resources = colonyResources(config.baseUrl);
  const bootstrap = config.bootstrapToken ? [bootstrapTokenVerifier(config.bootstrapToken)] : [];
  const verifiersFor = (r: ResourceServerSpec): CredentialVerifier[] => [
    ...bootstrap,
    ...identity.verifiersFor(r),
  ];
  const verifiers = verifiersFor(resources.api);
  const mcpVerifiers = verifiersFor(resources.mcp);

  const officeCluster = kc ? new OfficeCluster(kc, { officesOnly: k.rbacScope === 'offices' }) : undefined;
  const taskScheduler = new TaskScheduler({
    tasks: storage.tasks,
    registry,
    cluster: officeCluster,
    namespace: k.watchNamespace,
    templatesAllowed: (officeId) => entitlements.allows(officeId, 'task_templates'),
    log: app.log,
    intervalMs: config.taskSchedulerMs,
    now,
  });
  const oauthClients = parseOAuthClients(config.oauthClients);
  const tokenRefresher = new TokenRefresher({
    repo: storage.connect,
    registry,
    clients: oauthClients,
    cluster: officeCluster,
    log: app.log,
    marginMs: config.oauthRefreshSeconds * 1000,
    intervalMs: Math.min(config.oauthRefreshSeconds * 250, 60_000),
    now,
  });
  const catalog = buildCatalog(prices);
  const commerce = buildCommerce({
    config,
    storage,
    prices,
    catalog,
    store,
    now,
    renderOrderEvent: acpOrderEvent,
  });
  const usage = buildUsage({ config, storage, prices, kc, processor: commerce.processor, log: app.log, now });
  const services: AppServices = {
    config,
    storage,
    prices,
    catalog,
    probes,
    jobHandlers,
    jobRunner,
    verifiers,
    mcpVerifiers,
    identity,
    registry,
    kubeConfig: kc,
    officeCluster,
    backups,
    entitlements,
    officeCreation: new OfficeCreation({
      ...{ config, kubeConfig: kc, officeCluster, members: identity.officeMembers, entitlements, now },
    }),
    taskScheduler,
    pollers,
    connect: new ConnectService({
      registry,
      clients: oauthClients,
      repo: storage.connect,
      cluster: () => {
        if (!officeCluster)
          throw new ProblemError(
            'service_unavailable',
            'No Kubernetes cluster is configured (set KUBECONFIG).',
          );
        return officeCluster;
      },
      entitlements,
      baseUrl: config.baseUrl,
      now,
    }),
    tokenRefresher,
    apiLimiter: new RateLimiter({
      bucket: 'api',
      limit: config.rateLimit.apiPerWindow,
      windowMs: config.rateLimit.windowSeconds * 1000,
      store,
      now,
    }),
    commerce,
    usage,
    metrics,
    batchSecret: randomBytes(24).toString('base64url'),
    now,
  };
  app.decorate('colony', services);
  app.decorate('browserSession', { baseUrl: config.baseUrl, identity });
  const manager =
    config.managerPort === undefined
      ? undefined
      : await buildManagerServer({
          log: app.log.child({ listener: 'office-manager' }),
          base: listenerOptions,
          install: answers.install,
          validateResponses: opts.validateResponses ?? false,
          inputGuards: opts.inputGuards !== false,
          metrics,
          mounts: managerSurfaces(services),
        });
  app.decorate('managerServer', manager);

  const guarded = opts.inputGuards !== false;
  if (guarded) installInputGuards(app);
  // One hook for what every request passes through (its id, the input guards, then CORS), rather than
  // a hook step each on the read path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const refused = guarded ? hostileRequestError(request, reply) : undefined;
    if (refused) done(refused);
    else answerBrowsers(request, reply, done);
  });
  const background = backgroundWork({
    runJobs: opts.runJobs,
    ...{ jobRunner, pollers, backups },
    scheduled: [taskScheduler, tokenRefresher, ...usage.pollers],
    always: storePollers(shared),
  });
  app.addHook('onReady', background.start);
  app.addHook('onClose', async () => {
    await manager?.close();
    await background.stop();
    await store.close?.();
    if (!opts.storage) await storage.close();
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Colony API',
        version: VERSION,
        description: 'Public read API of Colony. Errors are RFC 9457 application/problem+json.',
      },
      servers: [{ url: config.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    // A route that declares no response cannot be described (MCP, browser pages): it stays out.
    transform: (input) =>
      input.schema?.response ? jsonSchemaTransform(input) : { schema: { hide: true }, url: input.url },
    transformObject: (input) =>
      withStandardProblems(withTextWithoutNul(withoutTrailingSlashes(jsonSchemaTransformObject(input))), {
        bodyLimitBytes: config.bodyLimitBytes,
        maxParamLength: app.initialConfig.maxParamLength ?? 100,
      }),
  });

  instrumentRequests(app, metrics);
  await mountAll(app, mainSurfaces(services, isClosing));
  return app;
}
