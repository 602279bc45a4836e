// The standard Kubernetes condition shape (metav1.Condition), shared by both kinds' status.
import { z } from 'zod';

export const conditionSchema = z.strictObject({
  type: z.string().regex(/^[A-Z][A-Za-z]*$/),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().regex(/^[A-Z][A-Za-z0-9]*$/),
  message: z.string().max(32768),
  lastTransitionTime: z.iso.datetime(),
  observedGeneration: z.number().int().min(0).optional(),
});

export type Condition = z.infer<typeof conditionSchema>;
