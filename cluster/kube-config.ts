// The cluster connection both processes use: in-cluster credentials, a kubeconfig file, or the default.
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConfigSource {
  kubeconfig?: string | undefined;
  inCluster: boolean;
}

export function loadKubeConfig(opts: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  if (opts.inCluster) kc.loadFromCluster();
  else if (opts.kubeconfig) kc.loadFromFile(opts.kubeconfig);
  else kc.loadFromDefault();
  return kc;
}
