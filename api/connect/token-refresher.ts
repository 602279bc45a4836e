// Refreshes OAuth access tokens before they expire. Each refresh is leased in storage, so two
// replicas never spend one refresh token twice; a refusal marks the connection refresh_failed.
import type { FastifyBaseLogger } from 'fastify';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { OfficeCluster } from '../office/office-cluster.ts';
import type { ConnectionRecord, ConnectRepo } from './connect-repo.ts';
import type { OAuthClient } from './oauth-clients.ts';
import { ProviderError, providerConfig, refreshTokens } from './provider.ts';
import { writeTokens } from './token-store.ts';

export interface TokenRefresherOptions {
  repo: ConnectRepo;
  registry: IntegrationRegistry;
  clients: ReadonlyMap<string, OAuthClient>;
  cluster: OfficeCluster | undefined;
  log: FastifyBaseLogger;
  /** Refresh this long before expiry. */
  marginMs: number;
  intervalMs: number;
  now: () => number;
}

const LEASE_MS = 60_000;

export class TokenRefresher {
  private readonly opts: TokenRefresherOptions;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(opts: TokenRefresherOptions) {
    this.opts = opts;
  }

  /** Refreshes every connection due now; answers how many were refreshed. */
  async refreshDue(): Promise<number> {
    const { repo, now, marginMs } = this.opts;
    let refreshed = 0;
    for (const c of await repo.due(now() + marginMs, now())) {
      if (!(await repo.lease(c, c.expiresAt, now(), LEASE_MS))) continue;
      if (await this.refreshOne(c)) refreshed++;
    }
    return refreshed;
  }

  private async refreshOne(c: ConnectionRecord): Promise<boolean> {
    const { repo, registry, clients, cluster, log, now } = this.opts;
    const manifest = registry.get(c.integrationId);
    const client = clients.get(c.integrationId);
    const fail = async (message: string) => {
      await repo.failed(c, message, now());
      log.warn(
        { officeId: c.officeId, integration: c.integrationId, reason: message },
        'oauth refresh failed',
      );
      return false;
    };
    if (!manifest?.oauth || !client || !cluster)
      return fail('The integration or its OAuth client is no longer configured; reconnect.');
    const refreshToken = await cluster.secretValue(c.namespace, c.secretName, manifest.oauth.refreshTokenKey);
    if (!refreshToken) return fail('The provider issued no refresh token; reconnect to renew access.');
    try {
      const tokens = await refreshTokens(providerConfig(manifest.oauth, client), refreshToken, now());
      await writeTokens(cluster, { ...c, manifest, namespace: c.namespace }, tokens);
      await repo.refreshed(c, tokens.expiresAt, now());
      return true;
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      // An unreachable provider is retried on the next pass while the token still works.
      if (err.code === 'provider_unreachable' && c.expiresAt !== null && c.expiresAt > now()) {
        await repo.refreshed(c, c.expiresAt, now());
        log.warn(
          { officeId: c.officeId, integration: c.integrationId },
          'oauth provider unreachable; will retry',
        );
        return false;
      }
      if (err.code === 'provider_unreachable')
        return fail('The provider could not be reached and the token expired.');
      return fail(`The provider refused to refresh the access token (${err.code}); reconnect.`);
    }
  }

  start(): void {
    if (this.timer || !this.opts.cluster) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.refreshDue()
        .catch((err) => {
          this.opts.log.error({ err }, 'oauth refresh pass failed');
          return 0;
        })
        .finally(() => {
          this.running = undefined;
        });
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
