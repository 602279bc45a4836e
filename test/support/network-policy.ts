// Pure: whether a set of NetworkPolicies lets one pod open a connection, by the API's rules. The local
// CNI does not enforce policies, so the tests evaluate what the API server stores instead.
import { BlockList, isIP } from 'node:net';
import type {
  V1LabelSelector,
  V1NetworkPolicy,
  V1NetworkPolicyEgressRule,
  V1NetworkPolicyPeer,
  V1NetworkPolicyPort,
} from '@kubernetes/client-node';

type Labels = Record<string, string>;

/** The pod the connection starts from. */
export interface Source {
  namespace: string;
  labels: Labels;
}

/** Where it goes: an address and port, and the pod behind them when there is one. */
export interface Destination {
  ip: string;
  port: number;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  /** The destination container's name for the port, for rules that name ports. */
  portName?: string;
  pod?: { namespace: string; labels: Labels; namespaceLabels: Labels };
}

/** matchLabels and matchExpressions; an empty selector matches everything. */
export function selects(selector: V1LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return true;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    byLabel &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const has = key in labels;
      switch (operator) {
        case 'In':
          return has && values.includes(labels[key] ?? '');
        case 'NotIn':
          return !has || !values.includes(labels[key] ?? '');
        case 'Exists':
          return has;
        case 'DoesNotExist':
          return !has;
        default:
          throw new Error(`unknown selector operator ${operator}`);
      }
    })
  );
}

/** Whether ip lies in cidr (IPv4 or IPv6; an address of the other family never does). */
export function inCidr(ip: string, cidr: string): boolean {
  const [net = '', bits = ''] = cidr.split('/');
  const family = isIP(net) === 6 ? 'ipv6' : 'ipv4';
  if (isIP(ip) !== isIP(net)) return false;
  const list = new BlockList();
  list.addSubnet(net, Number(bits), family);
  return list.check(ip, family);
}

function portMatches(p: V1NetworkPolicyPort, dest: Destination): boolean {
  if ((p.protocol ?? 'TCP') !== (dest.protocol ?? 'TCP')) return false;
  if (p.port === undefined) return true;
  if (typeof p.port === 'string' && !/^\d+$/.test(p.port)) return p.port === dest.portName;
  const first = Number(p.port);
  return dest.port >= first && dest.port <= (p.endPort ?? first);
}

function peerMatches(peer: V1NetworkPolicyPeer, policyNamespace: string, dest: Destination): boolean {
  if (peer.ipBlock) {
    const { cidr, except = [] } = peer.ipBlock;
    return inCidr(dest.ip, cidr) && !except.some((e) => inCidr(dest.ip, e));
  }
  const pod = dest.pod;
  if (!pod) return false;
  const inNamespace = peer.namespaceSelector
    ? selects(peer.namespaceSelector, pod.namespaceLabels)
    : pod.namespace === policyNamespace;
  return inNamespace && selects(peer.podSelector, pod.labels);
}

function ruleAllows(rule: V1NetworkPolicyEgressRule, policyNamespace: string, dest: Destination): boolean {
  const ports = rule.ports ?? [];
  const to = rule.to ?? [];
  return (
    (ports.length === 0 || ports.some((p) => portMatches(p, dest))) &&
    (to.length === 0 || to.some((peer) => peerMatches(peer, policyNamespace, dest)))
  );
}

/** Policies that isolate the source's egress: same namespace, selecting it, of type Egress. */
function isolating(policies: V1NetworkPolicy[], from: Source): V1NetworkPolicy[] {
  return policies.filter((p) => {
    const types = p.spec?.policyTypes ?? (p.spec?.egress ? ['Ingress', 'Egress'] : ['Ingress']);
    return (
      p.metadata?.namespace === from.namespace &&
      types.includes('Egress') &&
      selects(p.spec?.podSelector, from.labels)
    );
  });
}

/** Egress is allowed when no policy isolates the pod, or when any rule of one that does allows it. */
export function allowsEgress(policies: V1NetworkPolicy[], from: Source, dest: Destination): boolean {
  const applying = isolating(policies, from);
  if (applying.length === 0) return true;
  return applying.some((p) =>
    (p.spec?.egress ?? []).some((rule) => ruleAllows(rule, p.metadata?.namespace ?? '', dest)),
  );
}
