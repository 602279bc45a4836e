// One line per pod of what it is waiting for, so a timeout says ErrImageNeverPull or CrashLoopBackOff
// instead of only "not ready".
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { GiveUp } from './eventually.ts';

// Waiting reasons no amount of waiting fixes: the images here are only ever loaded locally.
const HOPELESS = new Set(['ErrImageNeverPull', 'InvalidImageName']);

export const isReady = (p: V1Pod): boolean =>
  !p.metadata?.deletionTimestamp &&
  (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

export function podSummary(p: V1Pod): string {
  const waiting = [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]
    .map((c) => {
      const w = c.state?.waiting;
      const t = c.state?.terminated ?? c.lastState?.terminated;
      if (w) return `${c.name} ${w.reason ?? 'waiting'}${w.message ? ` (${w.message.slice(0, 160)})` : ''}`;
      if (t && !c.ready) return `${c.name} exited ${t.exitCode} ${t.reason ?? ''}`.trim();
      return `${c.name} ${c.ready ? 'ready' : 'not ready'}`;
    })
    .join(', ');
  return `${p.metadata?.name}: ${p.status?.phase ?? 'Pending'}${waiting ? ` [${waiting}]` : ''}`;
}

/**
 * One line per pod matching the selector. Throws GiveUp when a pod waits for something that will
 * never come (an image that is not on the node), so a caller's `eventually` stops at once.
 */
export async function describePods(
  core: CoreV1Api,
  namespace: string,
  labelSelector: string,
): Promise<string> {
  const pods = (await core.listNamespacedPod({ namespace, labelSelector })).items;
  const summary = pods.map(podSummary).join('; ') || `no pods match ${labelSelector}`;
  const stuck = pods.some((p) =>
    (p.status?.containerStatuses ?? []).some((c) => HOPELESS.has(c.state?.waiting?.reason ?? '')),
  );
  if (stuck)
    throw new GiveUp(
      `${summary}. The image is not on the node: build and load it (npm run image, scripts/image/e2e-images.sh)`,
    );
  return summary;
}
