// Pure: what the memory tools (cortex_connectable_sources, cortex_connect_link; contracts §3) read
// from the registry: the sources a person can connect, and the browser link that connects one.
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';

export interface ConnectableSource {
  integrationId: string;
  name: string;
  description: string;
  /** `oauth`: the link signs the person in at the provider; otherwise it leads to the setup guide. */
  wizard: IntegrationManifest['wizard'];
  capabilities: string[];
}

/** Registry integrations whose wizard is `oauth` or that declare the capability `memory-source`. */
export function connectableSources(manifests: readonly IntegrationManifest[]): ConnectableSource[] {
  return manifests
    .filter((m) => m.wizard === 'oauth' || m.capabilities.includes('memory-source'))
    .map((m) => ({
      integrationId: m.id,
      name: m.name,
      description: m.description,
      wizard: m.wizard,
      capabilities: m.capabilities,
    }));
}

/** The browser entry of the Connect flow: `<base>/connect/<id>?office=<officeId>[&instance=<label>]`. */
export function connectLink(
  baseUrl: string,
  integrationId: string,
  officeId: string,
  instance?: string,
): string {
  const q = new URLSearchParams({ office: officeId, ...(instance ? { instance } : {}) });
  return `${baseUrl}/connect/${encodeURIComponent(integrationId)}?${q}`;
}
