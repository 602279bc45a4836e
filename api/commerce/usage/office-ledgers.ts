// Reads the usage ledgers the controller's meter keeps (cluster/usage-ledger.ts): one ConfigMap in
// each office's namespace. The API only reads them; in offices mode its RoleBinding allows exactly that.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { LABEL_OFFICE } from '../../../cluster/labels.ts';
import { readLedger, USAGE_CONFIGMAP, type UsageLedger } from '../../../cluster/usage-ledger.ts';

export interface LedgerSource {
  /** Every office the cluster knows: office id → namespace. */
  offices(): Promise<Map<string, string>>;
  /** The office's ledger; an empty one when it has none yet, undefined when the office has no namespace. */
  ledgerOf(officeId: string): Promise<UsageLedger | undefined>;
  /** The ledger in a namespace (an empty one when there is none yet). */
  ledgerIn(namespace: string): Promise<UsageLedger>;
}

const code = (err: unknown) => (err as { code?: number }).code;

export class ClusterLedgers implements LedgerSource {
  private readonly core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async offices(): Promise<Map<string, string>> {
    const list = await this.core.listNamespace({ labelSelector: LABEL_OFFICE });
    const out = new Map<string, string>();
    for (const ns of list.items) {
      const id = ns.metadata?.labels?.[LABEL_OFFICE];
      if (id && ns.metadata?.name && !ns.metadata.deletionTimestamp) out.set(id, ns.metadata.name);
    }
    return out;
  }

  async ledgerOf(officeId: string): Promise<UsageLedger | undefined> {
    const list = await this.core.listNamespace({ labelSelector: `${LABEL_OFFICE}=${officeId}` });
    const namespace = list.items.find((n) => !n.metadata?.deletionTimestamp)?.metadata?.name;
    return namespace ? this.ledgerIn(namespace) : undefined;
  }

  async ledgerIn(namespace: string): Promise<UsageLedger> {
    try {
      return readLedger(await this.core.readNamespacedConfigMap({ name: USAGE_CONFIGMAP, namespace }));
    } catch (err) {
      if (code(err) === 404) return readLedger(undefined);
      throw err;
    }
  }
}
