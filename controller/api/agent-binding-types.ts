// The AgentBinding custom resource (colony.ai/v1alpha1): one integration toggled for one agent.
import { z } from 'zod';
import { dnsLabel } from '../../integrations/registry/names.ts';
import { conditionSchema } from './conditions.ts';

export const agentBindingSpecSchema = z.strictObject({
  agentName: dnsLabel.describe('Value of the colony.ai/agent label on the agent workload'),
  integrationId: dnsLabel,
  instanceLabel: dnsLabel.optional(),
  secretName: dnsLabel.describe('Secret whose keys are injected as env vars'),
  enabled: z.boolean(),
  /** Per-agent settings of the members layer's agentConfig (plain values, never secrets). */
  config: z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/), z.string().max(4096)).optional(),
});

export const agentBindingStatusSchema = z.strictObject({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: z.array(conditionSchema).optional(),
  /** Env var names currently injected into the agent's pod template. */
  injectedEnv: z.array(z.string()).optional(),
  workload: z.strictObject({ kind: z.enum(['Deployment', 'StatefulSet']), name: z.string() }).optional(),
});

export type AgentBindingSpec = z.infer<typeof agentBindingSpecSchema>;
export type AgentBindingStatus = z.infer<typeof agentBindingStatusSchema>;
