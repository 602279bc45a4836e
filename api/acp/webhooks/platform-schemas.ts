// zod schemas of the agent platform routes (/api/v1/agent-platforms): the webhook secret is write-only.
import { z } from 'zod';
import { ACP_VERSIONS, LATEST_ACP_VERSION } from '../versions.ts';

// https to a named host (its last label starts with a letter, so it is never read as an IPv4 address),
// or plain http to this machine only (tests, a receiver beside Colony); no credentials, no fragment.
// A pattern rather than a refinement, so /openapi.json states the rule.
const ENDPOINT =
  /^(https:\/\/([A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*|http:\/\/(localhost|127\.0\.0\.1|\[::1\]))(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?(\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*)?(\?[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$/;

const webhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .regex(ENDPOINT, 'must be https (plain http only to localhost), without credentials or a fragment')
  .describe('Where order events are POSTed: the platform’s ACP order webhook endpoint');

const webhookSecret = z
  .string()
  .min(32, 'must be at least 32 characters')
  .max(256, 'must be at most 256 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  .describe('The shared secret requests are signed with (Merchant-Signature); never returned');

const apiVersion = z.enum(ACP_VERSIONS).describe('The ACP version whose webhook schema the endpoint takes');

const name = z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters');

export const platformIdSchema = z
  .string()
  .max(40)
  .regex(/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/, 'must be a lowercase DNS label of at most 40 characters');

export const platformParams = z.strictObject({ id: platformIdSchema });

export const createPlatformBody = z
  .strictObject({
    id: platformIdSchema.describe('Your name for the platform, e.g. "openai"'),
    name,
    apiVersion: apiVersion.default(LATEST_ACP_VERSION),
    webhookUrl,
    webhookSecret,
  })
  .meta({ id: 'CreateAgentPlatform' });

export const updatePlatformBody = z
  .strictObject({
    name: name.optional(),
    apiVersion: apiVersion.optional(),
    webhookUrl: webhookUrl.optional(),
    webhookSecret: webhookSecret.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'name at least one field to change')
  .meta({ id: 'UpdateAgentPlatform', minProperties: 1 });

export const platformSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    apiVersion: z.enum(ACP_VERSIONS),
    webhookUrl: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'AgentPlatform' });

export const createdPlatformSchema = platformSchema
  .extend({
    apiKey: z
      .string()
      .describe('Shown once: the platform sends it as its ACP bearer token, so its checkouts are its own'),
  })
  .meta({ id: 'CreatedAgentPlatform' });

export const platformListSchema = z
  .object({ platforms: z.array(platformSchema) })
  .meta({ id: 'AgentPlatformList' });
