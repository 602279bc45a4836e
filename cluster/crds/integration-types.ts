// The Integration custom resource (colony.ai/v1alpha1): one configured integration in one office.
import { z } from 'zod';
import { dnsLabel } from '../../integrations/registry/names.ts';
import { conditionsOf, immutableName, observedGenerationField } from './conditions.ts';

// What identifies the configuration (the resource and Secret names derive from it) never changes:
// the controller names per-office services, databases and files after it.
export const integrationSpecSchema = z
  .strictObject({
    integrationId: immutableName(
      'Integration',
      'integrationId',
      'Registry id of the integration (integrations/<id>/manifest.yaml); immutable',
    ),
    officeId: immutableName(
      'Integration',
      'officeId',
      'The office (colonyId) this configuration belongs to; immutable',
    ),
    instanceLabel: dnsLabel
      .optional()
      .describe('Instance of a multiInstance integration; immutable, and cannot be added or removed'),
    secretName: immutableName(
      'Integration',
      'secretName',
      'Secret in the same namespace holding the credential values, <id>[-<instanceLabel>]-<officeId>; immutable',
    ),
  })
  .meta({
    description:
      'Which registry entry this office configures and which Secret holds its credentials. Written by the office-manager API (POST .../integrations/{id}/secret).',
    // A transition rule on the object, so that adding or removing the optional label is refused too.
    'x-kubernetes-validations': [
      {
        rule: 'has(self.instanceLabel) == has(oldSelf.instanceLabel) && (!has(self.instanceLabel) || self.instanceLabel == oldSelf.instanceLabel)',
        message: 'spec.instanceLabel is immutable: delete the Integration and create a new one',
        fieldPath: '.instanceLabel',
      },
    ],
  });

/** The backend registration entry of spec 2.5, field names as the spec spells them. */
export const registrationSchema = z
  .strictObject({
    Name: z.string().describe('Display name of the integration'),
    ID: z.string().describe('Registry id of the integration'),
    Status: z
      .enum(['pending', 'configured', 'active', 'error'])
      .describe(
        'pending (not yet reconciled), configured (credentials complete, no agent), active (enabled for at least one agent) or error (the Available condition says why)',
      ),
    SecretName: z.string().describe('Secret holding the credential values'),
    Capabilities: z.array(z.string()).describe('What the integration gives agents, from its manifest'),
    AgentEnvVars: z.array(z.string()).describe('Env var names injected into each agent that enables it'),
  })
  .describe('The registration entry (interface spec 2.5), field names as that spec spells them');

export const integrationStatusSchema = z
  .strictObject({
    observedGeneration: observedGenerationField,
    registration: registrationSchema.optional(),
    conditions: conditionsOf(
      'Available: True (reason Configured or Active) when the credentials are complete and accepted; False with the reason otherwise. Degraded: True (ServiceReplicaFailure) when the per-office service cannot create pods. CredentialVerified: whether the provider accepted the credentials (absent when checks are off)',
    ),
    enabledAgents: z
      .array(z.string())
      .optional()
      .describe('Agents that currently have this integration injected'),
    credentialCheck: z
      .strictObject({
        ok: z.boolean().describe('True only when the provider accepted the credentials (result Verified)'),
        result: z
          .enum(['Verified', 'Refused', 'Unverified'])
          .optional()
          .describe('Verified, Refused (blocks injection) or Unverified (the provider could not be asked)'),
        message: z.string().max(1024).describe("The check's result in words; never a secret value"),
        secretVersion: z.string().describe('resourceVersion of the Secret that was checked'),
        checkedAt: z.iso.datetime().describe('When the check ran'),
        attempts: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Consecutive unverified checks of this Secret version: the retry backoff's exponent"),
        retryAt: z.iso.datetime().optional().describe('When an unverified check is tried again'),
      })
      .optional()
      .describe("The credentialCheck layer's last verdict, for the Secret version it checked"),
    oauth: z
      .strictObject({
        state: z.enum(['connected', 'refresh_failed']).describe('connected, or refresh_failed'),
        expiresAt: z.iso.datetime().optional().describe('When the access token expires'),
        message: z.string().max(1024).describe('The last refresh in words; never a token'),
        refreshedAt: z.iso.datetime().optional().describe('When the token was last refreshed'),
      })
      .optional()
      .describe('OAuth integrations: when the access token expires and whether the last refresh worked'),
  })
  .describe('What the controller observed; written by the controller only (the status subresource)');

export type IntegrationSpec = z.infer<typeof integrationSpecSchema>;
export type IntegrationStatus = z.infer<typeof integrationStatusSchema>;
export type Registration = z.infer<typeof registrationSchema>;
