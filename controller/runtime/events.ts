// An Event recorder (events.k8s.io/v1) that folds repeats into one Event's series instead of
// creating a new Event each time, as kubectl describe expects.
import { randomBytes } from 'node:crypto';
import { EventsV1Api, type KubeConfig, type KubernetesObject, V1MicroTime } from '@kubernetes/client-node';

/** Records an Event without waiting for it: reconcilers report and carry on. */
export type RecordEvent = (
  obj: KubernetesObject,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
) => void;

export interface EventRecorder {
  record(obj: KubernetesObject, type: 'Normal' | 'Warning', reason: string, note: string): Promise<void>;
}

const REPEAT_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED = 4096;

export function eventRecorder(kc: KubeConfig, controller: string, instance: string): EventRecorder {
  const api = kc.makeApiClient(EventsV1Api);
  const seen = new Map<string, { name: string; namespace: string; count: number; at: number }>();
  return {
    async record(obj, type, reason, note) {
      const namespace = obj.metadata?.namespace ?? 'default';
      const key = `${obj.metadata?.uid}|${type}|${reason}|${note}`;
      const now = Date.now();
      const prior = seen.get(key);
      if (prior && now - prior.at < REPEAT_WINDOW_MS) {
        prior.count++;
        prior.at = now;
        await api.patchNamespacedEvent({
          name: prior.name,
          namespace: prior.namespace,
          body: [
            {
              op: 'replace',
              path: '/series',
              value: { count: prior.count, lastObservedTime: new V1MicroTime(now) },
            },
          ],
        });
        return;
      }
      const name = `${obj.metadata?.name}.${randomBytes(6).toString('hex')}`;
      await api.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name, namespace },
          eventTime: new V1MicroTime(now),
          type,
          reason,
          // Notes carry names and reasons only; a credential value never reaches one.
          note: note.slice(0, 1024),
          action: 'Reconcile',
          reportingController: controller,
          reportingInstance: instance,
          regarding: {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            name: obj.metadata?.name,
            namespace,
            uid: obj.metadata?.uid,
            resourceVersion: obj.metadata?.resourceVersion,
          },
        },
      });
      if (seen.size >= MAX_TRACKED) seen.clear();
      seen.set(key, { name, namespace, count: 1, at: now });
    },
  };
}
