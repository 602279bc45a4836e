// A view of a KubeConfig that reports every API request it authenticates. Every client-node call,
// typed clients and watches alike, passes through applySecurityAuthentication exactly once, so
// this is the one place that sees all of the controller's traffic.
import type { KubeConfig } from '@kubernetes/client-node';
import { type RequestLabels, requestLabels } from './request-labels.ts';

type AuthContext = Parameters<KubeConfig['applySecurityAuthentication']>[0];

export function countingKubeConfig(kc: KubeConfig, onRequest: (labels: RequestLabels) => void): KubeConfig {
  // Delegates everything else to the original, which stays untouched for other users (the API).
  const view = Object.create(kc) as KubeConfig;
  view.applySecurityAuthentication = async (context: AuthContext) => {
    const headers = context.getHeaders();
    onRequest(requestLabels(context.getHttpMethod(), context.getUrl(), headers['Content-Type']));
    return kc.applySecurityAuthentication.call(view, context);
  };
  return view;
}
