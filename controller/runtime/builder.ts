// A controller's event wiring as data, in the terms of controller-runtime's builder: the kind it is
// `for`, the children it `owns`, and the other kinds it `watches` through a map function, each
// filtered by predicates. `wire` turns such a table into informer handlers that enqueue requests.
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import type { InformerHandlers } from './informer.ts';
import type { Predicate } from './predicates.ts';
import { type Request, requestKey } from './reconcile.ts';

/** Anything that reports adds, updates and deletes: an informer. */
export interface EventSource<T> {
  on(handlers: InformerHandlers<T>): void;
}

/** The primary kind: each of its objects is a request for itself. */
export interface For<T extends KubernetesObject> {
  source: EventSource<T>;
  predicates?: Predicate<T>[];
}

/**
 * Children: an object whose first owner reference of `ownerKind` names an owner in its namespace.
 * The request is that owner unless `map` says which requests the owner stands for.
 */
export interface Owns<T extends KubernetesObject> {
  source: EventSource<T>;
  ownerKind: string;
  map?(owner: Request): Request[];
  predicates?: Predicate<T>[];
}

/** Any other kind: `map` says which requests an object concerns. */
export interface Watches<T extends KubernetesObject> {
  source: EventSource<T>;
  map(obj: T): Request[];
  /** On an update, the old object's requests are enqueued too (an object that moved between them). */
  mapOld?: boolean;
  predicates?: Predicate<T>[];
}

export interface ControllerSpec {
  /** Names the controller's queue (in metrics). */
  name: string;
  /** What its requests name, for the logs (`Integration`, or `Agent` where there is no such kind). */
  kind: string;
  for?: For<KubernetesObject>;
  owns?: Owns<KubernetesObject>[];
  watches?: Watches<KubernetesObject>[];
}

/** Types one table row; the table itself holds rows of any kind. */
export const watch = <T extends KubernetesObject>(w: Watches<T>): Watches<KubernetesObject> => w;

/** Where requests go; `lowPriority` marks a periodic resync, served after real changes. */
export type Enqueue = (key: string, lowPriority: boolean) => void;

/**
 * Registers the handlers a spec describes. An event passes when every predicate lets it; a periodic
 * resync (the same object as old and new) passes always and is enqueued at low priority. Requests
 * without a namespace or name are dropped.
 */
export function wire(spec: ControllerSpec, enqueue: Enqueue): void {
  const sources: Watches<KubernetesObject>[] = [
    ...(spec.for ? [{ ...spec.for, map: (o: KubernetesObject) => [self(o)] }] : []),
    ...(spec.owns ?? []).map(ownerWatch),
    ...(spec.watches ?? []),
  ];
  for (const w of sources) w.source.on(handlers(w, enqueue));
}

function handlers<T extends KubernetesObject>(w: Watches<T>, enqueue: Enqueue): InformerHandlers<T> {
  const preds = w.predicates ?? [];
  const send = (obj: T, low: boolean) => {
    for (const req of w.map(obj)) if (req.namespace && req.name) enqueue(requestKey(req), low);
  };
  return {
    add: (obj) => preds.every((p) => p.create?.(obj) ?? true) && send(obj, false),
    update: (obj, old) => {
      const resync = obj === old;
      if (!resync && !preds.every((p) => p.update?.(obj, old) ?? true)) return;
      send(obj, resync);
      if (w.mapOld) send(old, resync);
    },
    delete: (obj) => preds.every((p) => p.delete?.(obj) ?? true) && send(obj, false),
  };
}

const self = (o: KubernetesObject): Request => ({
  namespace: o.metadata?.namespace ?? '',
  name: o.metadata?.name ?? '',
});

function ownerWatch(o: Owns<KubernetesObject>): Watches<KubernetesObject> {
  const toRequests = o.map ?? ((owner: Request) => [owner]);
  return {
    source: o.source,
    ...(o.predicates ? { predicates: o.predicates } : {}),
    map: (obj) => {
      const ref: V1OwnerReference | undefined = obj.metadata?.ownerReferences?.find(
        (r) => r.kind === o.ownerKind,
      );
      return ref ? toRequests({ namespace: obj.metadata?.namespace ?? '', name: ref.name }) : [];
    },
  };
}
