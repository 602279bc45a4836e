// Pure: a per-office service (manifest layer colonyContainer) as a Deployment with one replica and
// the Recreate strategy, a Service, and optionally a PVC that outlives the service. The image may be
// swapped for a mirror (COLONY_IMAGE_OVERRIDES), passed in as a map.

import { createHash } from 'node:crypto';
import type { V1Deployment, V1EnvVar, V1PersistentVolumeClaim, V1Service } from '@kubernetes/client-node';
import {
  ANNOTATION_SPEC_HASH,
  LABEL_INSTANCE,
  LABEL_INTEGRATION,
  LABEL_MANAGED_BY,
  LABEL_OFFICE,
  MANAGED_BY,
} from '../../cluster/labels.ts';
import type { IntegrationManifest } from '../../integrations/registry/manifest-schema.ts';
import { DEFAULT_POD_SECURITY, type PodSecurity } from './pod-security.ts';

export interface OfficeServiceArgs {
  manifest: IntegrationManifest;
  officeId: string;
  namespace: string;
  secretName: string;
  instanceLabel?: string | undefined;
  /** Image reference the manifest names → image to run instead (a mirror); exact matches only. */
  imageOverrides?: Readonly<Record<string, string>> | undefined;
  /** securityContexts of the service pod and container; restricted Pod Security by default. */
  security?: Pick<PodSecurity, 'servicePod' | 'serviceContainer'> | undefined;
}

/** The image to run for a manifest's reference: its override when there is one, else itself. */
export function serviceImage(image: string, overrides: Readonly<Record<string, string>> = {}): string {
  return Object.hasOwn(overrides, image) ? (overrides[image] ?? image) : image;
}

export function officeServiceName(integrationId: string, instanceLabel?: string): string {
  return instanceLabel ? `colony-${integrationId}-${instanceLabel}` : `colony-${integrationId}`;
}

export function officeServiceUrl(args: OfficeServiceArgs): string | undefined {
  const c = args.manifest.colonyContainer;
  if (!c) return undefined;
  return `http://${officeServiceName(args.manifest.id, args.instanceLabel)}.${args.namespace}.svc:${c.port}`;
}

function labels(args: OfficeServiceArgs): Record<string, string> {
  return {
    [LABEL_OFFICE]: args.officeId,
    [LABEL_INTEGRATION]: args.manifest.id,
    ...(args.instanceLabel ? { [LABEL_INSTANCE]: args.instanceLabel } : {}),
    [LABEL_MANAGED_BY]: MANAGED_BY,
  };
}

export function renderOfficeService(args: OfficeServiceArgs): {
  deployment: V1Deployment;
  service: V1Service;
  pvc: V1PersistentVolumeClaim | undefined;
} {
  const c = args.manifest.colonyContainer;
  if (!c) throw new Error(`${args.manifest.id} has no colonyContainer layer`);
  const name = officeServiceName(args.manifest.id, args.instanceLabel);
  const meta = { name, namespace: args.namespace, labels: labels(args) };
  const selector = { 'app.kubernetes.io/name': name };
  const env: V1EnvVar[] = [
    ...Object.entries(c.env).map(([k, value]) => ({ name: k, value })),
    ...c.secretEnv.map((k) => ({ name: k, valueFrom: { secretKeyRef: { name: args.secretName, key: k } } })),
  ].sort((a, b) => a.name.localeCompare(b.name));
  const pv = c.persistentVolume;
  const security = args.security ?? DEFAULT_POD_SECURITY;
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta,
    spec: {
      replicas: 1,
      // One writer at a time: the old pod is gone before the new one mounts the volume.
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...labels(args), ...selector } },
        spec: {
          securityContext: security.servicePod,
          containers: [
            {
              name: 'service',
              image: serviceImage(c.image, args.imageOverrides),
              ...(c.command ? { command: c.command } : {}),
              ...(c.args ? { args: c.args } : {}),
              ports: [{ name: 'service', containerPort: c.port }],
              env,
              ...(c.resources ? { resources: c.resources } : {}),
              ...(pv ? { volumeMounts: [{ name: 'data', mountPath: pv.mountPath }] } : {}),
              securityContext: security.serviceContainer,
            },
          ],
          ...(pv ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }] } : {}),
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta,
    spec: { selector, ports: [{ name: 'service', port: c.port, targetPort: 'service' }] },
  };
  const pvc: V1PersistentVolumeClaim | undefined = pv
    ? {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: meta,
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: pv.size } },
          ...(pv.storageClassName ? { storageClassName: pv.storageClassName } : {}),
        },
      }
    : undefined;
  // A hash of everything rendered lets the controller skip applying what is already there.
  const hash = createHash('sha256')
    .update(JSON.stringify({ deployment, service, pvc }))
    .digest('hex')
    .slice(0, 16);
  deployment.metadata = { ...deployment.metadata, annotations: { [ANNOTATION_SPEC_HASH]: hash } };
  return { deployment, service, pvc };
}
