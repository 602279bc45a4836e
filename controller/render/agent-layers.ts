// Pure: what the manifest v2 layers of an agent's enabled integrations add to its pod template:
// credential files (Secret items mounted at their paths), shared drives, the integration config
// (MCP servers, plugins, SDK extensions) and an init container that makes folders and installs CLIs.
import { createHash } from 'node:crypto';
import type { V1Container, V1SecurityContext, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import { INIT_CONTAINER, type InitPlan, renderInitScript, TOOLS_DIR } from './init-script.ts';
import { RESTRICTED_CONTAINER } from './pod-security.ts';

export const INTEGRATIONS_CONFIG_DIR = '/etc/colony/integrations';
export const SHARED_DRIVE_ROOT = '/shared/files/_integrations';

/** One enabled integration of the agent, as the layers need it. */
export interface EnabledLayers {
  manifest: IntegrationManifest;
  /** Integration resource name: the id, or `<id>-<instance>`. */
  resourceName: string;
  /** The rendered credential files Secret, when the integration has credentialFiles. */
  filesSecret?: { name: string; version: string } | undefined;
  /** Mount paths per credential file when not the manifest's own (instances; see agent-surface.ts). */
  filePaths?: readonly (readonly string[])[] | undefined;
}

export interface AgentLayers {
  volumes: V1Volume[];
  mounts: V1VolumeMount[];
  initContainer: V1Container | undefined;
  /** The merged integration config served to the agent as integrations.json (undefined when empty). */
  config: IntegrationsConfig | undefined;
  /** Rolls the agent when a rendered file or the config changes. */
  checksumParts: string[];
}

export interface IntegrationsConfig {
  mcpServers: Record<
    string,
    { command: string; args: string[]; env: Record<string, string>; integration: string }
  >;
  gatewayPlugins: { package: string; integration: string }[];
  sdkExtensions: { package: string; integration: string }[];
}

const short = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 10);
/** Volume names are DNS labels of at most 63 characters; a long integration name is hashed. */
const volumeName = (prefix: string, name: string) =>
  `${prefix}-${name}`.length <= 63 ? `${prefix}-${name}` : `${prefix}-${short(name)}`;

export const configMapName = (agentName: string) => `${agentName}-colony-integrations`;
export const driveClaimName = (resourceName: string) => `colony-drive-${resourceName}`;
export const driveMountPath = (resourceName: string) => `${SHARED_DRIVE_ROOT}/${resourceName}`;

function files(e: EnabledLayers, out: AgentLayers): void {
  if (!e.manifest.credentialFiles?.length || !e.filesSecret) return;
  const name = volumeName('colony-files', e.resourceName);
  out.volumes.push({
    name,
    secret: {
      secretName: e.filesSecret.name,
      items: e.manifest.credentialFiles.map((f, i) => ({
        key: `file-${i}`,
        path: `file-${i}`,
        mode: Number.parseInt(f.mode, 8),
      })),
    },
  });
  e.manifest.credentialFiles.forEach((f, i) => {
    for (const mountPath of e.filePaths?.[i] ?? [f.path])
      out.mounts.push({ name, mountPath, subPath: `file-${i}`, readOnly: true });
  });
  out.checksumParts.push(`files:${e.filesSecret.name}@${e.filesSecret.version}`);
}

function mergeTools(e: EnabledLayers, config: IntegrationsConfig): void {
  const t = e.manifest.tools;
  if (!t) return;
  for (const s of t.mcpServers) {
    const key = s.name === e.resourceName ? s.name : `${e.resourceName}-${s.name}`;
    config.mcpServers[key] = { command: s.command, args: s.args, env: s.env, integration: e.resourceName };
  }
  for (const p of t.gatewayPlugins) config.gatewayPlugins.push({ package: p, integration: e.resourceName });
  for (const p of t.sdkExtensions) config.sdkExtensions.push({ package: p, integration: e.resourceName });
}

function initContainer(
  plan: InitPlan,
  image: string,
  securityContext: V1SecurityContext,
  driveMounts: V1VolumeMount[],
): V1Container | undefined {
  const needsDirs = plan.drives.some((d) => d.subdirectories.length > 0);
  if (plan.installs.length === 0 && !needsDirs) return undefined;
  const mounts = [...driveMounts];
  if (plan.installs.length > 0) mounts.push({ name: 'colony-tools', mountPath: TOOLS_DIR });
  return {
    name: INIT_CONTAINER,
    image,
    command: ['bash', '-c', renderInitScript(plan)],
    terminationMessagePolicy: 'FallbackToLogsOnError',
    securityContext,
    volumeMounts: mounts,
  };
}

export function renderAgentLayers(
  agentName: string,
  enabled: readonly EnabledLayers[],
  initImage: string,
  initSecurityContext: V1SecurityContext = RESTRICTED_CONTAINER,
): AgentLayers {
  const out: AgentLayers = {
    volumes: [],
    mounts: [],
    initContainer: undefined,
    config: undefined,
    checksumParts: [],
  };
  const config: IntegrationsConfig = { mcpServers: {}, gatewayPlugins: [], sdkExtensions: [] };
  const plan: InitPlan = { drives: [], installs: [] };
  const driveMounts: V1VolumeMount[] = [];
  for (const e of [...enabled].sort((a, b) => a.resourceName.localeCompare(b.resourceName))) {
    files(e, out);
    mergeTools(e, config);
    if (e.manifest.sharedDrive) {
      const name = volumeName('colony-drive', e.resourceName);
      const mountPath = driveMountPath(e.resourceName);
      out.volumes.push({ name, persistentVolumeClaim: { claimName: driveClaimName(e.resourceName) } });
      out.mounts.push({ name, mountPath });
      driveMounts.push({ name, mountPath });
      plan.drives.push({ mountPath, subdirectories: e.manifest.sharedDrive.subdirectories });
    }
    if (e.manifest.cliInstalls)
      plan.installs.push({ integrationId: e.resourceName, cliInstalls: e.manifest.cliInstalls });
  }
  out.initContainer = initContainer(plan, initImage, initSecurityContext, driveMounts);
  if (plan.installs.length > 0) {
    out.volumes.push({ name: 'colony-tools', emptyDir: {} });
    out.mounts.push({ name: 'colony-tools', mountPath: TOOLS_DIR });
  }
  const hasConfig =
    Object.keys(config.mcpServers).length + config.gatewayPlugins.length + config.sdkExtensions.length > 0;
  if (hasConfig) {
    out.config = config;
    out.volumes.push({ name: 'colony-integrations', configMap: { name: configMapName(agentName) } });
    out.mounts.push({ name: 'colony-integrations', mountPath: INTEGRATIONS_CONFIG_DIR, readOnly: true });
    out.checksumParts.push(`config:${short(JSON.stringify(config))}`);
  }
  if (out.initContainer) out.checksumParts.push(`init:${short(JSON.stringify(out.initContainer))}`);
  return out;
}
