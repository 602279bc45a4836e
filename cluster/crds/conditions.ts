// The standard Kubernetes condition shape (metav1.Condition), shared by both kinds' status.
import { z } from 'zod';
import { dnsLabel } from '../../integrations/registry/names.ts';

export const conditionSchema = z
  .strictObject({
    type: z
      .string()
      .regex(/^[A-Z][A-Za-z]*$/)
      .describe(
        'Condition type: Available (in effect), Degraded (something needs attention) or, on an Integration, CredentialVerified',
      ),
    status: z.enum(['True', 'False', 'Unknown']).describe('True, False or Unknown'),
    reason: z
      .string()
      .regex(/^[A-Z][A-Za-z0-9]*$/)
      .describe('Why, in one CamelCase word; docs/operator.md lists every reason and what to do'),
    message: z.string().max(32768).describe('Why, in words; never a secret value'),
    lastTransitionTime: z.iso.datetime().describe('When the status last changed'),
    observedGeneration: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The metadata.generation this condition was computed for'),
  })
  .describe('One condition, as metav1.Condition');

export type Condition = z.infer<typeof conditionSchema>;

/** A status's observedGeneration, as both kinds carry it. */
export const observedGenerationField = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('The metadata.generation the controller last acted on');

/** The conditions list of a kind's status, described for that kind. */
export const conditionsOf = (description: string) =>
  z.array(conditionSchema).optional().describe(description);

/** A DNS-label field of a kind's spec that keeps the value it was created with (a CEL rule). */
export const immutableName = (kind: string, field: string, description: string) =>
  dnsLabel.meta({ description, 'x-kubernetes-validations': [immutable(field, kind)] });

/** A CEL rule (x-kubernetes-validations) that keeps a field as it was created. */
export const immutable = (field: string, kind: string) => ({
  rule: 'self == oldSelf',
  message: `spec.${field} is immutable: delete the ${kind} and create a new one`,
});
