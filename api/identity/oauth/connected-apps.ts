// The OAuth grants an account has given (its connected applications), listed and revoked.

import type { AuthorizationServer } from './authorization-server.ts';
import type { OAuthArtifactsRepo } from './oauth-artifacts-repo.ts';

export interface ConnectedApp {
  grantId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  resources: string[];
  grantedAt: number;
}

interface GrantPayload {
  clientId?: string;
  iat?: number;
  openid?: { scope?: string };
  resources?: Record<string, string>;
}

export class ConnectedApps {
  private readonly provider: AuthorizationServer;
  private readonly repo: OAuthArtifactsRepo;
  private readonly now: () => number;

  constructor(provider: AuthorizationServer, repo: OAuthArtifactsRepo, now: () => number) {
    this.provider = provider;
    this.repo = repo;
    this.now = now;
  }

  async list(accountId: string): Promise<ConnectedApp[]> {
    const grants = await this.repo.listByAccount('Grant', accountId, this.now());
    const apps = await Promise.all(
      grants.map(async (g) => {
        const p = g.payload as GrantPayload;
        const clientId = p.clientId ?? '';
        const client = clientId ? await this.provider.Client.find(clientId) : undefined;
        const resourceScopes = Object.values(p.resources ?? {}).flatMap((s) => s.split(' '));
        return {
          grantId: g.id,
          clientId,
          clientName: client?.clientName ?? clientId,
          scopes: [...new Set([...(p.openid?.scope?.split(' ') ?? []), ...resourceScopes])].filter(Boolean),
          resources: Object.keys(p.resources ?? {}),
          grantedAt: (p.iat ?? 0) * 1000,
        };
      }),
    );
    return apps.sort((a, b) => b.grantedAt - a.grantedAt);
  }

  /** Ends the grant and every token issued under it; false when the account holds no such grant. */
  async revoke(accountId: string, grantId: string): Promise<boolean> {
    const grant = await this.provider.Grant.find(grantId);
    if (!grant || grant.accountId !== accountId) return false;
    await this.repo.revokeByGrantId(grantId);
    // Through the adapter, which tells the credential cache.
    await grant.destroy();
    return true;
  }
}
