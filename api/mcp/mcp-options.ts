// The services the MCP surface is given by the mount table (api/routes.ts), and no other.
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import type { PriceList } from '../domain/pricing/price-list.ts';
import type { Probe } from '../domain/status/probes.ts';
import type { IdentityServices } from '../identity/identity-services.ts';
import type { CredentialVerifier } from '../shared/identity.ts';

export interface McpOptions {
  config: Config;
  /** Credentials for the MCP resource: tokens issued for another resource are refused. */
  verifiers: CredentialVerifier[];
  /** Memory lives with the accounts. */
  identity: IdentityServices;
  registry: IntegrationRegistry;
  prices: PriceList;
  probes: () => Probe[];
  /** The published skills. */
  storage: Storage;
  now: () => number;
}
