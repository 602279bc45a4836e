// The mount table: every HTTP surface of the API in registration order, each with its prefix and only
// the services it uses, passed as Fastify plugin options. buildServer() mounts it; no surface mounts another.
// /openapi.json lists its components in the order their zod schemas are defined. These modules are
// evaluated first, in this order, so that the document does not depend on the order of the rows below.
import './public/schemas.ts';
import './backups/schemas.ts';
import './identity/keys/schemas.ts';
import './office/schemas.ts';
import './identity/offices/schemas.ts';
import './acp/webhooks/platform-schemas.ts';
import './office/routes/tasks.ts';
import './integrations/plugin.ts';
import { agentPlatformRoutes } from './acp/webhooks/platform-routes.ts';
import type { AppServices } from './app-services.ts';
import { backupsPlugin } from './backups/routes.ts';
import { accountPlanSection } from './commerce/billing/account-plan.ts';
import { accountPortal } from './commerce/billing/portal-routes.ts';
import { commercePlugin } from './commerce/plugin.ts';
import { accountUsageSection } from './commerce/usage/usage-section.ts';
import { commerceSurfaces } from './commerce-surfaces.ts';
import { connectRoutes } from './connect/routes.ts';
import { discoveryPlugin } from './discovery/plugin.ts';
import { apiKeyRoutes } from './identity/keys/routes.ts';
import { oauthPlugin } from './identity/oauth/plugin.ts';
import { officeMemberRoutes } from './identity/offices/members-routes.ts';
import { identityPages } from './identity/pages/routes.ts';
import { integrationsPlugin } from './integrations/plugin.ts';
import { mcpPlugin } from './mcp/plugin.ts';
import { healthRoutes } from './observability/health.ts';
import { officePlugin } from './office/plugin.ts';
import { accountOfficesSection } from './office/self-serve/offices-section.ts';
import { apiRateLimit } from './public/api-rate-limit.ts';
import { publicApiPlugin } from './public/plugin.ts';
import { browserAccessScope } from './shared/browser-access.ts';
import { ANY_ORIGIN } from './shared/cors-answer.ts';
import { jsonApiScope, type Mount, mount } from './shared/mount.ts';

/** An onRequest hook over the one request budget of /api/v1, /api/snapshots and the manager API. */
function apiBudget(s: AppServices) {
  const { config, apiLimiter, batchSecret, metrics } = s;
  return apiRateLimit({ baseUrl: config.baseUrl, limiter: apiLimiter, batchSecret, metrics });
}

/** /api/v1: a JSON API scope (problem+json, JSON bodies, the budget) holding `mounts`. */
function apiV1(s: AppServices, mounts: Mount[]): Mount {
  const { config, verifiers } = s;
  return mount(
    jsonApiScope,
    { baseUrl: config.baseUrl, rateLimit: apiBudget(s), verifiers, mounts },
    '/api/v1',
  );
}

/** The office-manager API inside /api/v1: on PORT, or alone on COLONY_MANAGER_PORT. */
function officeManager(s: AppServices): Mount[] {
  const { config, verifiers, identity, registry, storage, officeCluster, now } = s;
  const { taskScheduler, connect, entitlements, officeCreation } = s;
  return [
    mount(
      officePlugin,
      {
        config,
        verifiers,
        identity,
        registry,
        storage,
        officeCluster,
        taskScheduler,
        connect,
        entitlements,
        officeCreation,
        now,
      },
      '/offices',
    ),
    mount(officeMemberRoutes, { config, verifiers, identity, now }, '/offices'),
  ];
}

/** What the main listener (PORT) serves, after its health routes' readiness flag is known. */
export function mainSurfaces(s: AppServices, isShuttingDown: () => boolean): Mount[] {
  const { config, storage, prices, identity, verifiers, registry, now } = s;
  const { catalog, probes, jobHandlers, apiLimiter, batchSecret, metrics } = s;
  const commerce = { config, storage, commerce: s.commerce, prices, metrics, now };
  return [
    mount(healthRoutes, { storage, isShuttingDown }),
    mount(identityPages, {
      ...{ config, prices, identity },
      planSection: accountPlanSection(storage),
      officeSection: accountOfficesSection({
        identity,
        entitlements: s.entitlements,
        officeCreation: s.officeCreation,
      }),
      usageSection: accountUsageSection(s.usage.account),
    }),
    mount(oauthPlugin, { config, identity }),
    mount(connectRoutes, { config, connect: s.connect, storage, now }),
    apiV1(s, [
      // Bearer tokens only, never cookies: any page may call /api/v1 (docs/decisions.md).
      mount(browserAccessScope, {
        policy: ANY_ORIGIN,
        mounts: [
          mount(publicApiPlugin, {
            ...{ config, storage, prices, catalog, probes, now },
            ...{ jobHandlers, apiLimiter, batchSecret, metrics, verifiers, identity },
            usage: (accountId: string) => s.usage.account.forAccount(accountId),
          }),
          mount(integrationsPlugin, { config, registry }, '/integrations'),
          mount(apiKeyRoutes, { config, verifiers, identity }),
          mount(agentPlatformRoutes, { config, verifiers, storage, now }),
          ...(config.managerPort === undefined ? officeManager(s) : []),
        ],
      }),
    ]),
    mount(
      backupsPlugin,
      {
        ...{ config, verifiers, storage, backups: s.backups, entitlements: s.entitlements },
        ...{ now, rateLimit: apiBudget(s) },
      },
      '/api/snapshots',
    ),
    mount(browserAccessScope, {
      policy: ANY_ORIGIN,
      mounts: [mount(discoveryPlugin, { config, prices, storage })],
    }),
    mount(mcpPlugin, { config, verifiers: s.mcpVerifiers, identity, registry, prices, probes, storage, now }),
    mount(commerceSurfaces, commerce),
    mount(commercePlugin, { ...commerce, pollers: s.pollers }),
    // The plan page (where order permalinks land), with the same usage section as /account.
    mount(accountPortal, { ...commerce, usageSection: accountUsageSection(s.usage.account) }),
  ];
}

/** What the office-manager listener (COLONY_MANAGER_PORT) serves. */
export function managerSurfaces(s: AppServices): Mount[] {
  return [apiV1(s, officeManager(s))];
}
