// The Connect flow between the pages and the provider: starting (state bound to office, account and
// integration, single use, short-lived) and finishing (code exchange, tokens into the Secret).

import { integrationResourceName } from '../../cluster/registration.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import type { Entitlements } from '../commerce/entitlements/entitlements.ts';
import { guardSave, officeState } from '../office/composition-guard.ts';
import type { OfficeCluster } from '../office/office-cluster.ts';
import { requireIntegrationRoom } from '../office/plan-checks.ts';
import type { ConnectRepo, ConnectState } from './connect-repo.ts';
import type { OAuthClient } from './oauth-clients.ts';
import { authorizationRequest, exchangeCode, providerConfig } from './provider.ts';
import { saveConnectedIntegration, writeTokens } from './token-store.ts';

/** A state is good for this long: enough to sign in at the provider, short enough to be useless later. */
export const STATE_TTL_MS = 10 * 60_000;

export interface ConnectDeps {
  registry: IntegrationRegistry;
  clients: ReadonlyMap<string, OAuthClient>;
  repo: ConnectRepo;
  cluster: () => OfficeCluster;
  /** A self-serve office's plan: a new integration must fit it, at the start and again at the callback. */
  entitlements: Entitlements;
  baseUrl: string;
  now: () => number;
}

/** Why a Connect step cannot go on; the pages turn it into a status and a sentence. */
export class ConnectError extends Error {
  override readonly name = 'ConnectError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export const redirectUri = (baseUrl: string) => `${baseUrl}/connect/callback`;

export class ConnectService {
  private readonly deps: ConnectDeps;

  constructor(deps: ConnectDeps) {
    this.deps = deps;
  }

  /** The registry entry, when it connects by OAuth and the operator registered a client for it. */
  oauthIntegration(id: string): { manifest: IntegrationManifest; client: OAuthClient } {
    const manifest = this.deps.registry.get(id);
    if (!manifest) throw new ConnectError(404, `There is no integration ${id} in the registry.`);
    if (!manifest.oauth) throw new ConnectError(400, `${manifest.name} is not connected by OAuth.`);
    const client = this.deps.clients.get(id);
    if (!client)
      throw new ConnectError(
        503,
        `The operator has not registered an OAuth client for ${manifest.name} (COLONY_OAUTH_CLIENTS).`,
      );
    return { manifest, client };
  }

  async namespace(officeId: string): Promise<string> {
    const ns = await this.deps.cluster().officeNamespace(officeId);
    if (!ns) throw new ConnectError(404, `There is no office ${officeId}.`);
    return ns;
  }

  /** The office's namespace, once a new integration there fits its plan (a reconnect always does). */
  private async requireRoom(
    manifest: IntegrationManifest,
    officeId: string,
    instanceLabel: string | undefined,
  ): Promise<string> {
    const namespace = await this.namespace(officeId);
    const name = integrationResourceName(manifest.id, instanceLabel);
    await requireIntegrationRoom(this.deps, { officeId, namespace, name }, manifest);
    return namespace;
  }

  /** Records a fresh state and answers the provider URL to send the browser to. */
  async start(
    integrationId: string,
    officeId: string,
    accountId: string,
    instanceLabel: string | undefined,
  ): Promise<URL> {
    const { manifest, client } = this.oauthIntegration(integrationId);
    if (instanceLabel && !manifest.multiInstance)
      throw new ConnectError(
        400,
        `${manifest.name} has a single instance per office; drop the instance parameter.`,
      );
    await this.requireRoom(manifest, officeId, instanceLabel);
    const oauth = manifest.oauth as NonNullable<IntegrationManifest['oauth']>;
    const config = providerConfig(oauth, client);
    const request = await authorizationRequest(config, oauth, redirectUri(this.deps.baseUrl));
    const now = this.deps.now();
    await this.deps.repo.saveState(
      request.state,
      {
        officeId,
        accountId,
        integrationId,
        instanceLabel,
        codeVerifier: request.codeVerifier,
        expiresAt: now + STATE_TTL_MS,
      },
      now,
    );
    return request.url;
  }

  /** Exchanges the code and stores the tokens; refuses what the office's composition forbids. */
  async finish(state: string, s: ConnectState, callbackUrl: URL): Promise<IntegrationManifest> {
    const { manifest, client } = this.oauthIntegration(s.integrationId);
    const cluster = this.deps.cluster();
    // Checked again: the office may have filled up while the owner was at the provider.
    const namespace = await this.requireRoom(manifest, s.officeId, s.instanceLabel);
    const integrations = await cluster.listIntegrations(namespace);
    guardSave(this.deps.registry, manifest, officeState(this.deps.registry, integrations, []).configured);
    const oauth = manifest.oauth as NonNullable<IntegrationManifest['oauth']>;
    const config = providerConfig(oauth, client);
    const tokens = await exchangeCode(
      config,
      callbackUrl,
      { state, codeVerifier: s.codeVerifier },
      this.deps.now(),
    );
    const target = { ...s, manifest, namespace };
    const secretName = await writeTokens(cluster, target, tokens);
    await saveConnectedIntegration(cluster, target, secretName);
    await this.deps.repo.connected(
      { ...s, namespace, secretName, expiresAt: tokens.expiresAt },
      this.deps.now(),
    );
    return manifest;
  }
}
