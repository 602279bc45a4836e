// Pure: the bash script of an agent's `colony-init` container: the shared-drive folders of its
// integrations, then each integration's cliInstalls into /opt/colony/tools (linked into its bin/).
// Names were validated by the manifest schema; every one is single-quoted here all the same.
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';

export const TOOLS_DIR = '/opt/colony/tools';
export const INIT_CONTAINER = 'colony-init';
/** The failing integration is named on the termination message in this form, for the condition. */
export const INIT_FAILURE = /colony-init: ([a-z0-9-]+): /;

export const quote = (s: string) => `'${s.replaceAll("'", `'"'"'`)}'`;

export interface InitPlan {
  drives: { mountPath: string; subdirectories: string[] }[];
  installs: { integrationId: string; cliInstalls: NonNullable<IntegrationManifest['cliInstalls']> }[];
}

function installLines(cli: InitPlan['installs'][number]['cliInstalls']): string[] {
  const lines: string[] = [];
  if (cli.apt.length > 0) {
    lines.push(
      'apt-get $APT update -qq',
      `(cd "$T/debs" && apt-get $APT download ${cli.apt.map(quote).join(' ')})`,
      'for f in "$T"/debs/*.deb; do dpkg -x "$f" "$T/apt"; done',
    );
  }
  if (cli.npm.length > 0)
    lines.push(`npm install --global --no-fund --no-audit --prefix "$T/npm" ${cli.npm.map(quote).join(' ')}`);
  if (cli.pip.length > 0) {
    lines.push(
      'command -v pip3 >/dev/null || { echo "colony-init: pip3 is not in the init image" >&2; false; }',
      `pip3 install --quiet --no-cache-dir --break-system-packages --target "$T/pip/lib" ${cli.pip.map(quote).join(' ')}`,
    );
  }
  for (const b of cli.binaries) {
    lines.push(
      `curl -fsSL --retry 3 -o "$T/bin/${b.name}" ${quote(b.url)}`,
      `echo ${quote(`${b.sha256}  `)}"$T/bin/${b.name}" | sha256sum -c --quiet -`,
      `chmod 0755 "$T/bin/${b.name}"`,
    );
  }
  return lines;
}

export function renderInitScript(plan: InitPlan): string {
  const lines = [
    'set -euo pipefail',
    `T=${TOOLS_DIR}`,
    'current=drives',
    // The termination message names the integration whose step failed (read into the binding's condition).
    `trap 'echo "colony-init: $current: failed at line $LINENO" > /dev/termination-log' ERR`,
  ];
  for (const d of plan.drives) {
    const dirs = [d.mountPath, ...d.subdirectories.map((s) => `${d.mountPath}/${s}`)].map(quote).join(' ');
    // The agent may run as another user than this container: every enabled agent may write there.
    lines.push(`mkdir -p ${dirs}`, `chmod 0777 ${dirs} 2>/dev/null || true`);
  }
  // The tools volume is mounted only when something is installed; unprivileged, nothing else is writable.
  if (plan.installs.length === 0) return `${[...lines, 'true'].join('\n')}\n`;
  lines.push(
    'mkdir -p "$T/bin" "$T/debs" "$T/apt" "$T/npm" "$T/pip/lib"',
    // Unprivileged (restricted Pod Security): apt keeps its lists and cache, npm its cache, in
    // places this user may write.
    'export HOME="$(mktemp -d)"',
    'mkdir -p "$HOME/apt/lists/partial" "$HOME/apt/cache/archives/partial"',
    'APT="-o Dir::State::Lists=$HOME/apt/lists -o Dir::Cache=$HOME/apt/cache -o Debug::NoLocking=1"',
  );
  for (const i of [...plan.installs].sort((a, b) => a.integrationId.localeCompare(b.integrationId))) {
    lines.push(
      `current=${i.integrationId}`,
      `echo "colony-init: installing for ${i.integrationId}"`,
      ...installLines(i.cliInstalls),
    );
  }
  lines.push(
    'for d in "$T/apt/usr/bin" "$T/apt/bin" "$T/npm/bin"; do [ -d "$d" ] && for f in "$d"/*; do ln -sf "$f" "$T/bin/"; done; done',
    'true',
  );
  return `${lines.join('\n')}\n`;
}
