// An agent as the controller tests make one: a StatefulSet labelled colony.ai/agent whose first
// container, `agent`, receives what the controller injects.
import type { V1EnvVar, V1StatefulSet } from '@kubernetes/client-node';

export function agentStatefulSet(
  name: string,
  opts: { annotations?: Record<string, string>; env?: V1EnvVar[] } = {},
): V1StatefulSet {
  return {
    metadata: {
      name,
      labels: { 'colony.ai/agent': name },
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: {
      serviceName: name,
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'agent', image: 'busybox', ...(opts.env ? { env: opts.env } : {}) }],
        },
      },
    },
  };
}
