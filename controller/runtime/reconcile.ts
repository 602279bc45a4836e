// What a reconciler is given and may answer, in controller-runtime's terms: a request names one
// object (never the event), a result may ask for a re-check, and an error says whether to retry.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from './logger.ts';

/** The object to reconcile: its namespace and name, nothing about what changed. */
export interface Request {
  namespace: string;
  name: string;
}

/** Reconciled; look again after `requeueAfter` ms when set (a re-check, not a retry). */
export interface Result {
  requeueAfter?: number;
}

/**
 * Reconciles one request with its own logger. Resolving means done (or done until `requeueAfter`);
 * throwing a RetryableError, or any error that is not a TerminalError, means retry with backoff.
 */
export type Reconciler = (req: Request, log: Logger) => Promise<Result | undefined>;

/** Failed for now (an API call refused or unreachable): retried with the queue's backoff. */
export class RetryableError extends Error {
  override readonly name = 'RetryableError';
}

/**
 * Failed in a way retrying cannot mend: logged, reported as a Warning Event on `object` when there
 * is one, and not retried. The next change to a watched object enqueues the request again.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  readonly reason: string;
  readonly object: KubernetesObject | undefined;

  constructor(reason: string, message: string, opts: { object?: KubernetesObject; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.reason = reason;
    this.object = opts.object;
  }
}

/** The work queue's key of a request, `namespace/name`. */
export const requestKey = (req: Request): string => `${req.namespace}/${req.name}`;

export function requestOf(key: string): Request {
  const [namespace = '', name = ''] = key.split('/');
  return { namespace, name };
}
