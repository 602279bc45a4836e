// Pure: the two CustomResourceDefinitions, generated from the zod schemas of their spec and status.
import type { z } from 'zod';
import { agentBindingSpecSchema, agentBindingStatusSchema } from './agent-binding-types.ts';
import { integrationSpecSchema, integrationStatusSchema } from './integration-types.ts';
import { markConditionsList, structuralSchema } from './structural-schema.ts';

export const GROUP = 'colony.ai';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

interface KindInfo {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  description: string;
  spec: z.ZodType;
  status: z.ZodType;
  columns: { name: string; type: string; jsonPath: string; description: string; priority?: number }[];
}

export const kinds: KindInfo[] = [
  {
    kind: 'Integration',
    plural: 'integrations',
    singular: 'integration',
    shortNames: ['intg', 'cint'],
    description:
      'An integration configured for one office: which registry entry, and the Secret holding its credentials.',
    spec: integrationSpecSchema,
    status: integrationStatusSchema,
    columns: [
      { name: 'Integration', type: 'string', jsonPath: '.spec.integrationId', description: 'Registry id' },
      { name: 'Instance', type: 'string', jsonPath: '.spec.instanceLabel', description: 'Instance label' },
      {
        name: 'Status',
        type: 'string',
        jsonPath: '.status.registration.Status',
        description: 'Registration status',
      },
      {
        name: 'Ready',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Available")].status',
        description: 'Credentials complete and accepted (the Available condition)',
      },
      {
        name: 'Secret',
        type: 'string',
        jsonPath: '.spec.secretName',
        description: 'Credential Secret',
        priority: 1,
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Age' },
    ],
  },
  {
    kind: 'AgentBinding',
    plural: 'agentbindings',
    singular: 'agentbinding',
    shortNames: ['ab', 'agb'],
    description:
      "An integration toggled on or off for one agent; the controller injects the integration's env vars.",
    spec: agentBindingSpecSchema,
    status: agentBindingStatusSchema,
    columns: [
      { name: 'Agent', type: 'string', jsonPath: '.spec.agentName', description: 'Agent name' },
      { name: 'Integration', type: 'string', jsonPath: '.spec.integrationId', description: 'Registry id' },
      { name: 'Enabled', type: 'boolean', jsonPath: '.spec.enabled', description: 'Toggled on' },
      {
        name: 'Ready',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Available")].status',
        description: 'Injected',
      },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Age' },
    ],
  },
];

export function buildCrd(k: KindInfo) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${GROUP}`, labels: { 'app.kubernetes.io/part-of': 'colony' } },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: k.kind,
        listKind: `${k.kind}List`,
        plural: k.plural,
        singular: k.singular,
        shortNames: k.shortNames,
        categories: ['colony'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: k.columns,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: k.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string', description: 'APIVersion of this representation' },
                kind: { type: 'string', description: 'Kind of this representation' },
                metadata: { type: 'object' },
                spec: structuralSchema(k.spec),
                status: markConditionsList(structuralSchema(k.status)),
              },
            },
          },
        },
      ],
    },
  };
}
