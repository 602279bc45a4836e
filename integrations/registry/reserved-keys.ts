// Environment variable names that neither an integration nor a user may set on an agent: the
// platform's own identity variables, and names that change how every process in the pod runs.

export const reservedEnvKeys: readonly string[] = [
  'COLONY_OFFICE_ID',
  'COLONY_AGENT_NAME',
  'COLONY_API_URL',
  'COLONY_API_KEY',
  'PATH',
  'HOME',
  'HOSTNAME',
  'USER',
  'SHELL',
  'PWD',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'NODE_OPTIONS',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'SSL_CERT_FILE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
];

/** Whole families are reserved too: Colony's own and the ones Kubernetes injects into every pod. */
export const reservedEnvPrefixes: readonly string[] = ['COLONY_', 'KUBERNETES_'];

export function isReservedEnvKey(name: string): boolean {
  return reservedEnvKeys.includes(name) || reservedEnvPrefixes.some((p) => name.startsWith(p));
}
