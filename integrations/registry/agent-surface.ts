// Pure: the names an agent's enabled integrations occupy in its container (env variables and
// credential file paths), and which of them collide. Shared by the API, which refuses a toggle that
// would collide, and the controller, which holds back the later of two colliding bindings.
//
// Instances of a multi-instance integration never collide with each other: every instance gets
// qualified names (GITHUB_TOKEN_WORK, /home/agent/.config/gh/work/hosts.yml), and the earliest
// enabled instance also keeps the plain ones, so an agent with one instance works unchanged.
import { type IntegrationManifest, valueEnvNames } from './manifest-schema.ts';

export interface EnabledInstance {
  manifest: IntegrationManifest;
  /** Integration resource name: the id, or `<id>-<instance>`. */
  resourceName: string;
  instanceLabel?: string | undefined;
  /** Earlier sorts first: the first enabled instance keeps the plain names, the first claim wins. */
  order: string;
}

export interface AgentSurface {
  /** Env names per source name: a Secret key, a config key or a service URL variable. */
  env: Record<string, string[]>;
  /** Mount paths per credential file (index into manifest.credentialFiles). */
  files: string[][];
}

export interface SurfaceConflict {
  kind: 'env' | 'file';
  name: string;
  /** The resource that claimed the name first, and the one refused. */
  holder: string;
  refused: string;
}

/**
 * Bindings count in creation order (to the second), then by name: earlier ones keep the plain names
 * and hold a name first. One not created yet counts last.
 */
export const bindingOrder = (
  b: { metadata?: { creationTimestamp?: Date | string; name?: string } } | undefined,
) =>
  b?.metadata?.creationTimestamp
    ? `${new Date(b.metadata.creationTimestamp).toISOString()}|${b.metadata.name ?? ''}`
    : `~|${b?.metadata?.name ?? ''}`;

/** GITHUB_TOKEN + work-org → GITHUB_TOKEN_WORK_ORG. */
export const instanceEnvName = (name: string, instanceLabel: string) =>
  `${name}_${instanceLabel.toUpperCase().replaceAll('-', '_')}`;

/** /home/agent/.config/gh/hosts.yml + work → /home/agent/.config/gh/work/hosts.yml. */
export function instanceFilePath(path: string, instanceLabel: string): string {
  const cut = path.lastIndexOf('/');
  return `${path.slice(0, cut)}/${instanceLabel}${path.slice(cut)}`;
}

/** Every env name a manifest can put into an agent, before instance qualification. */
export function manifestEnvNames(m: IntegrationManifest): string[] {
  return [...new Set([...m.agentEnvVars, ...valueEnvNames(m)])];
}

function surfaceOf(e: EnabledInstance, primary: boolean): AgentSurface {
  const label = e.manifest.multiInstance ? e.instanceLabel : undefined;
  const names = (plain: string, qualified: string | undefined) =>
    qualified === undefined ? [plain] : primary ? [plain, qualified] : [qualified];
  const env: Record<string, string[]> = {};
  for (const n of manifestEnvNames(e.manifest))
    env[n] = names(n, label === undefined ? undefined : instanceEnvName(n, label));
  const files = (e.manifest.credentialFiles ?? []).map((f) =>
    names(f.path, label === undefined ? undefined : instanceFilePath(f.path, label)),
  );
  return { env, files };
}

/** Each enabled instance's surface, keyed by resource name. */
export function agentSurfaces(enabled: readonly EnabledInstance[]): Map<string, AgentSurface> {
  const sorted = [...enabled].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  const seen = new Set<string>();
  const out = new Map<string, AgentSurface>();
  for (const e of sorted) {
    const primary = !seen.has(e.manifest.id);
    seen.add(e.manifest.id);
    out.set(e.resourceName, surfaceOf(e, primary));
  }
  return out;
}

/**
 * Names claimed twice, in order: the earlier instance holds the name and the later one is refused.
 * A manifest may list one name in two layers (agentEnvVars and a config key): that is not a conflict.
 */
export function surfaceConflicts(enabled: readonly EnabledInstance[]): SurfaceConflict[] {
  const surfaces = agentSurfaces(enabled);
  const sorted = [...enabled].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  const holders = { env: new Map<string, string>(), file: new Map<string, string>() };
  const refused = new Set<string>();
  const out: SurfaceConflict[] = [];
  for (const e of sorted) {
    const s = surfaces.get(e.resourceName);
    if (!s) continue;
    const claims: { kind: 'env' | 'file'; name: string }[] = [...new Set(Object.values(s.env).flat())].map(
      (name) => ({ kind: 'env' as const, name }),
    );
    for (const name of new Set(s.files.flat())) claims.push({ kind: 'file', name });
    const mine = claims.flatMap((c) => {
      const holder = holders[c.kind].get(c.name);
      return holder && holder !== e.resourceName ? [{ ...c, holder, refused: e.resourceName }] : [];
    });
    if (mine.length > 0) {
      // A refused instance claims nothing, so it cannot push a third one out.
      refused.add(e.resourceName);
      out.push(...mine);
      continue;
    }
    for (const c of claims) holders[c.kind].set(c.name, e.resourceName);
  }
  return out;
}

export const describeConflict = (c: SurfaceConflict) =>
  c.kind === 'env'
    ? `${c.refused} and ${c.holder} both inject ${c.name}`
    : `${c.refused} and ${c.holder} both mount a file at ${c.name}`;
