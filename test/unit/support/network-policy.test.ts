import type { V1NetworkPolicy, V1NetworkPolicySpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { allowsEgress, type Destination, inCidr, selects } from '../../support/network-policy.ts';

const policy = (spec: Partial<V1NetworkPolicySpec>, namespace = 'app'): V1NetworkPolicy => ({
  metadata: { name: 'p', namespace },
  spec: { podSelector: { matchLabels: { role: 'db-client' } }, policyTypes: ['Egress'], ...spec },
});
const client = { namespace: 'app', labels: { role: 'db-client' } };
const db: Destination = { ip: '10.1.2.3', port: 5432 };
const dbPod: Destination = {
  ...db,
  pod: { namespace: 'data', labels: { app: 'postgres' }, namespaceLabels: { team: 'data' } },
};

describe('allowsEgress', () => {
  it.each<[string, V1NetworkPolicy[], Destination, boolean]>([
    ['allows everything when no policy exists', [], db, true],
    ['denies everything under a policy with no egress rule', [policy({ egress: [] })], db, false],
    ['allows a listed port to anywhere', [policy({ egress: [{ ports: [{ port: 5432 }] }] })], db, true],
    ['denies a port not listed', [policy({ egress: [{ ports: [{ port: 6379 }] }] })], db, false],
    [
      'denies UDP where only TCP is listed',
      [policy({ egress: [{ ports: [{ port: 5432 }] }] })],
      { ...db, protocol: 'UDP' },
      false,
    ],
    [
      'allows a port inside a range (endPort)',
      [policy({ egress: [{ ports: [{ port: 5000, endPort: 6000 }] }] })],
      db,
      true,
    ],
    [
      'denies a port past the range',
      [policy({ egress: [{ ports: [{ port: 5000, endPort: 5400 }] }] })],
      db,
      false,
    ],
    [
      'allows an address inside an ipBlock',
      [policy({ egress: [{ to: [{ ipBlock: { cidr: '10.1.0.0/16' } }] }] })],
      db,
      true,
    ],
    [
      'denies an address in the ipBlock except list',
      [policy({ egress: [{ to: [{ ipBlock: { cidr: '10.1.0.0/16', except: ['10.1.2.0/24'] } }] }] })],
      db,
      false,
    ],
    [
      'needs both the port and the peer of one rule',
      [policy({ egress: [{ ports: [{ port: 5432 }], to: [{ ipBlock: { cidr: '192.168.0.0/16' } }] }] })],
      db,
      false,
    ],
    [
      'allows what any one of the rules allows',
      [policy({ egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }, { ports: [{ port: 5432 }] }] })],
      db,
      true,
    ],
    [
      'allows a pod in a namespace the namespaceSelector selects',
      [policy({ egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'data' } } }] }] })],
      dbPod,
      true,
    ],
    [
      'denies a pod whose namespace the namespaceSelector does not select',
      [policy({ egress: [{ to: [{ namespaceSelector: { matchLabels: { team: 'web' } } }] }] })],
      dbPod,
      false,
    ],
    [
      'reads a bare podSelector as pods of the policy’s own namespace',
      [policy({ egress: [{ to: [{ podSelector: { matchLabels: { app: 'postgres' } } }] }] })],
      dbPod,
      false,
    ],
    [
      'needs both selectors when a peer has both',
      [
        policy({
          egress: [
            {
              to: [
                {
                  namespaceSelector: { matchLabels: { team: 'data' } },
                  podSelector: { matchLabels: { app: 'redis' } },
                },
              ],
            },
          ],
        }),
      ],
      dbPod,
      false,
    ],
    [
      'never matches a selector peer for an address with no pod',
      [policy({ egress: [{ to: [{ namespaceSelector: {} }] }] })],
      db,
      false,
    ],
    [
      'allows a named port only on a container port of that name',
      [policy({ egress: [{ ports: [{ port: 'postgres' }] }] })],
      { ...db, portName: 'postgres' },
      true,
    ],
    ['ignores policies of other namespaces', [policy({ egress: [] }, 'other')], db, true],
    [
      'ignores policies selecting other pods',
      [policy({ podSelector: { matchLabels: { role: 'web' } }, egress: [] })],
      db,
      true,
    ],
    ['ignores Ingress-only policies', [policy({ policyTypes: ['Ingress'] })], db, true],
    [
      'reads a missing policyTypes as Egress when egress rules exist',
      [policy({ policyTypes: undefined, egress: [{ ports: [{ port: 80 }] }] })],
      db,
      false,
    ],
    [
      'allows what one of several isolating policies allows',
      [policy({ egress: [] }), policy({ egress: [{ ports: [{ port: 5432 }] }] })],
      db,
      true,
    ],
  ])('%s', (_what, policies, dest, allowed) => {
    expect(allowsEgress(policies, client, dest)).toBe(allowed);
  });
});

describe('selects', () => {
  it.each<[string, Parameters<typeof selects>[0], boolean]>([
    ['an empty selector matches all', {}, true],
    ['matchLabels all equal', { matchLabels: { a: '1', b: '2' } }, true],
    ['matchLabels one differs', { matchLabels: { a: '2' } }, false],
    ['In', { matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '3'] }] }, true],
    ['In, key missing', { matchExpressions: [{ key: 'z', operator: 'In', values: ['1'] }] }, false],
    ['NotIn, key missing', { matchExpressions: [{ key: 'z', operator: 'NotIn', values: ['1'] }] }, true],
    ['NotIn, value listed', { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, false],
    ['Exists', { matchExpressions: [{ key: 'b', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'b', operator: 'DoesNotExist' }] }, false],
  ])('%s', (_what, selector, matched) => {
    expect(selects(selector, { a: '1', b: '2' })).toBe(matched);
  });
});

describe('inCidr', () => {
  it.each([
    ['10.1.2.3', '10.1.2.3/32', true],
    ['10.1.2.4', '10.1.2.3/32', false],
    ['10.1.2.3', '0.0.0.0/0', true],
    ['fd00::5', 'fd00::/8', true],
    ['fd00::5', '0.0.0.0/0', false],
    ['10.1.2.3', '::/0', false],
  ])('%s in %s: %s', (ip, cidr, inside) => {
    expect(inCidr(ip, cidr)).toBe(inside);
  });
});
