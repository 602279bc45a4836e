// The Integration custom resource (colony.ai/v1alpha1): one configured integration in one office.
import { z } from 'zod';
import { dnsLabel } from '../../integrations/registry/names.ts';
import { conditionSchema } from './conditions.ts';

export const integrationSpecSchema = z.strictObject({
  integrationId: dnsLabel.describe('Registry id of the integration (integrations/<id>/manifest.yaml)'),
  officeId: dnsLabel.describe('The office (colonyId) this configuration belongs to'),
  instanceLabel: dnsLabel.optional().describe('Instance of a multiInstance integration'),
  secretName: dnsLabel.describe('Secret in the same namespace holding the credential values'),
});

/** The backend registration entry of spec 2.5, field names as the spec spells them. */
export const registrationSchema = z.strictObject({
  Name: z.string(),
  ID: z.string(),
  Status: z.enum(['pending', 'configured', 'active', 'error']),
  SecretName: z.string(),
  Capabilities: z.array(z.string()),
  AgentEnvVars: z.array(z.string()),
});

export const integrationStatusSchema = z.strictObject({
  observedGeneration: z.number().int().min(0).optional(),
  registration: registrationSchema.optional(),
  conditions: z.array(conditionSchema).optional(),
  /** Agents that currently have this integration injected. */
  enabledAgents: z.array(z.string()).optional(),
  /** The credentialCheck layer's last verdict, for the Secret version it checked. */
  credentialCheck: z
    .strictObject({
      /** True only when the provider accepted the credentials (result Verified). */
      ok: z.boolean(),
      /** Verified, Refused (blocks injection) or Unverified (the provider could not be asked). */
      result: z.enum(['Verified', 'Refused', 'Unverified']).optional(),
      message: z.string().max(1024),
      secretVersion: z.string(),
      checkedAt: z.iso.datetime(),
      /** Consecutive unverified checks of this Secret version: the retry backoff's exponent. */
      attempts: z.number().int().min(1).optional(),
      /** When an unverified check is tried again. */
      retryAt: z.iso.datetime().optional(),
    })
    .optional(),
  /** OAuth integrations: when the access token expires and whether the last refresh worked. */
  oauth: z
    .strictObject({
      state: z.enum(['connected', 'refresh_failed']),
      expiresAt: z.iso.datetime().optional(),
      message: z.string().max(1024),
      refreshedAt: z.iso.datetime().optional(),
    })
    .optional(),
});

export type IntegrationSpec = z.infer<typeof integrationSpecSchema>;
export type IntegrationStatus = z.infer<typeof integrationStatusSchema>;
export type Registration = z.infer<typeof registrationSchema>;
