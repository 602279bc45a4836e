// The AgentBinding custom resource (colony.ai/v1alpha1): one integration toggled for one agent.
import { z } from 'zod';
import { dnsLabel } from '../../integrations/registry/names.ts';
import { conditionsOf, immutableName, observedGenerationField } from './conditions.ts';

// Which agent and which configured integration a binding is about never changes (the API names the
// binding after them); only the toggle and the agent's settings do.
export const agentBindingSpecSchema = z
  .strictObject({
    agentName: immutableName(
      'AgentBinding',
      'agentName',
      'Value of the colony.ai/agent label on the agent workload; immutable',
    ),
    integrationId: immutableName(
      'AgentBinding',
      'integrationId',
      'Registry id of the integration; immutable',
    ),
    instanceLabel: dnsLabel
      .optional()
      .describe('Instance of a multiInstance integration; immutable, and cannot be added or removed'),
    secretName: immutableName(
      'AgentBinding',
      'secretName',
      "Secret whose keys are injected as env vars (the Integration's spec.secretName); immutable",
    ),
    enabled: z.boolean().describe('Whether the integration is injected into the agent'),
    config: z
      .record(z.string().regex(/^[A-Z][A-Z0-9_]*$/), z.string().max(4096))
      .optional()
      .describe("Per-agent settings of the members layer's agentConfig (plain values, never secrets)"),
  })
  .meta({
    description:
      'One integration toggled for one agent. Written by the office-manager API (POST .../integrations/{id}/agents/{agentName}).',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.instanceLabel) == has(oldSelf.instanceLabel) && (!has(self.instanceLabel) || self.instanceLabel == oldSelf.instanceLabel)',
        message: 'spec.instanceLabel is immutable: delete the AgentBinding and create a new one',
        fieldPath: '.instanceLabel',
      },
    ],
  });

export const agentBindingStatusSchema = z
  .strictObject({
    observedGeneration: observedGenerationField,
    conditions: conditionsOf(
      'Available: True when the env vars are in the agent pod template (reason Injected). Degraded: True when something needs attention. Both carry the reason',
    ),
    injectedEnv: z
      .array(z.string())
      .optional()
      .describe("Env var names currently injected into the agent's pod template"),
    workload: z
      .strictObject({
        kind: z.enum(['Deployment', 'StatefulSet']).describe('Deployment or StatefulSet'),
        name: z.string().describe("The workload's name"),
      })
      .optional()
      .describe('The agent workload the binding was injected into'),
  })
  .describe('What the controller observed; written by the controller only (the status subresource)');

export type AgentBindingSpec = z.infer<typeof agentBindingSpecSchema>;
export type AgentBindingStatus = z.infer<typeof agentBindingStatusSchema>;
