// zod schemas of the API key routes.
import { z } from 'zod';
import { dnsLabel } from '../../../integrations/registry/names.ts';
import { apiKeyScopes, defaultApiKeyScopes } from '../scopes.ts';

// The pattern says in the document what trim() needs: a character that is not white space (the BOM
// included, which JavaScript trims and other regex engines do not count as space). A schema with a
// pattern of its own gets no added NUL rule in /openapi.json (openapi-text.ts), so this one states
// the input guards' rule too: no U+0000 anywhere.
export const keyName = z
  .string()
  // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is named on purpose, to exclude it
  .regex(/^[^\u0000]*[^\s\ufeff\u0000][^\u0000]*$/, 'is required')
  .trim()
  .min(1, 'is required')
  .max(100, 'must be at most 100 characters');
export const keyScopes = z.array(z.enum(apiKeyScopes)).min(1).max(apiKeyScopes.length);

export const createKeyBody = z
  .strictObject({
    name: keyName.describe('What the key is for, e.g. "ci deploys"'),
    scopes: keyScopes.default([...defaultApiKeyScopes] as (typeof apiKeyScopes)[number][]),
    offices: z
      .array(dnsLabel)
      .min(1)
      .max(100)
      .nullable()
      .default(null)
      .describe('Offices the key is bound to; null binds it to every office you are a member of'),
    expiresInDays: z.number().int().min(1).max(3650).nullable().default(null),
  })
  .meta({ id: 'CreateApiKey' });

export const keyParams = z.strictObject({
  id: z
    .string()
    .max(28)
    .regex(/^key_[a-z2-7]{24}$/),
});

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    hint: z.string().describe('The prefix and first characters; never enough to use the key'),
    scopes: z.array(z.string()),
    offices: z.array(z.string()).nullable(),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable(),
    expiresAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = apiKeySchema
  .extend({ key: z.string().describe('The key itself. Shown this once: store it now.') })
  .meta({ id: 'CreatedApiKey' });

export const apiKeyListSchema = z.object({ keys: z.array(apiKeySchema) }).meta({ id: 'ApiKeys' });
