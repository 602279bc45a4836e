// zod schemas of the office-manager API (spec 4.7).
import { z } from 'zod';
import { conditionSchema } from '../../cluster/crds/conditions.ts';
import { registrationSchema as controllerRegistrationSchema } from '../../cluster/crds/integration-types.ts';
import { dnsLabel } from '../../integrations/registry/names.ts';
import { problemResponses } from '../public/problem-responses.ts';

export const officeParams = z.strictObject({ officeID: dnsLabel });
export const integrationParams = z.strictObject({ officeID: dnsLabel, integration_id: dnsLabel });
export const agentParams = z.strictObject({
  officeID: dnsLabel,
  integration_id: dnsLabel,
  agentName: dnsLabel,
});

export const saveSecretBody = z
  .strictObject({
    secretName: z.string().min(1).max(253).optional().describe('Defaults to the integration’s k8sSecretName'),
    data: z
      .record(z.string().min(1).max(253), z.string().max(65_536))
      .describe('Env var name to value; never echoed back'),
  })
  .meta({ id: 'SaveIntegrationSecret' });

export const toggleAgentBody = z
  .strictObject({
    enabled: z.boolean(),
    secretName: z.string().min(1).max(253).describe('The Secret of the configured integration (or instance)'),
    config: z
      .record(
        z
          .string()
          .max(253)
          .regex(/^[A-Z][A-Z0-9_]*$/),
        z.string().max(4096),
      )
      .optional()
      .describe('Per-agent settings declared by the integration’s members.agentConfig'),
  })
  .meta({ id: 'ToggleAgentIntegration' });

export const deleteQuery = z.strictObject({ instance: dnsLabel.optional() });

// The resources' own schemas, so the API answers exactly what the CRDs hold.
const condition = conditionSchema.meta({ id: 'Condition' });
const registrationSchema = controllerRegistrationSchema.meta({ id: 'Registration' });

export const savedIntegrationSchema = z
  .object({
    officeId: z.string(),
    integrationId: z.string(),
    instanceLabel: z.string().nullable(),
    registration: registrationSchema,
    savedKeys: z.array(z.string()).describe('Names of the stored credential fields (never their values)'),
  })
  .meta({ id: 'SavedIntegration' });

export const agentToggleSchema = z
  .object({
    officeId: z.string(),
    integrationId: z.string(),
    instanceLabel: z.string().nullable(),
    agentName: z.string(),
    enabled: z.boolean(),
    secretName: z.string(),
    conditions: z.array(condition),
  })
  .meta({ id: 'AgentIntegration' });

export const officeIntegrationsSchema = z
  .object({
    officeId: z.string(),
    recommendations: z
      .array(z.object({ integrationId: z.string(), name: z.string(), recommendedBy: z.array(z.string()) }))
      .describe(
        'Integrations the configured ones are composed with (composedWith) that are not configured yet',
      ),
    integrations: z.array(
      z.object({
        integrationId: z.string(),
        instanceLabel: z.string().nullable(),
        registration: registrationSchema,
        conditions: z.array(condition),
        connection: z
          .object({
            status: z.enum(['connected', 'refresh_failed']),
            message: z.string().nullable().describe('Why the last refresh failed, and what to do'),
            expiresAt: z.string().nullable().describe('When the current access token expires'),
            connectedAt: z.string(),
          })
          .nullable()
          .describe('The OAuth connection of an integration connected through /connect; null otherwise'),
        agents: z.array(
          z.object({ agentName: z.string(), enabled: z.boolean(), conditions: z.array(condition) }),
        ),
      }),
    ),
  })
  .meta({ id: 'OfficeIntegrations' });

export const connectLinkSchema = z
  .object({ connectUrl: z.string().describe('Open in a browser, signed in as a member of the office') })
  .meta({ id: 'ConnectLink' });

export const connectQuery = z.object({
  instance: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lowercase letters, digits and hyphens')
    .max(63)
    .optional()
    .describe('Instance name, for integrations with several instances per office'),
});

export const officeSchema = z
  .object({
    officeId: z.string(),
    namespace: z.string().describe('The namespace labelled colony.ai/office=<officeId>'),
  })
  .meta({ id: 'Office' });

/** OpenAPI security and tag of every office-manager operation. */
export const officeSecured = { security: [{ bearer: [] }], tags: ['office-manager'] };
export const officeProblems = problemResponses(400, 401, 403, 404, 409, 429, 503);
