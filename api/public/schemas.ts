// zod schemas of the public read API: the validators, the response types and the OpenAPI document.
import { z } from 'zod';
import { type JobTypeName, jobInputs } from '../domain/jobs/job-types.ts';
import { jobStatuses } from '../domain/jobs/jobs-repo.ts';
import { gatedFeatures } from '../domain/pricing/price-list.ts';

export const problemSchema = z
  .object({
    type: z.url().describe('URI of the problem type; it resolves to a page describing it'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().describe('The request path that failed'),
    code: z.string().describe('Stable machine-readable code from docs/errors.md'),
    requestId: z.string().optional(),
    errors: z.array(z.object({ location: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

const link = z.object({ href: z.url(), method: z.enum(['GET', 'POST']) });

export const indexSchema = z
  .object({
    name: z.literal('Colony API'),
    version: z.string(),
    environment: z.enum(['production', 'sandbox']),
    links: z.record(z.string(), link),
  })
  .meta({ id: 'ApiIndex' });

export const serviceStatusSchema = z
  .object({
    name: z.string(),
    status: z.enum(['operational', 'degraded', 'down']),
    description: z.string(),
    latencyMs: z.number().nullable(),
    checkedAt: z.iso.datetime(),
    detail: z.string().optional(),
  })
  .meta({ id: 'ServiceStatus' });

export const statusSchema = z
  .object({
    status: z.enum(['operational', 'degraded', 'down']),
    environment: z.enum(['production', 'sandbox']),
    services: z.array(serviceStatusSchema),
  })
  .meta({ id: 'PlatformStatus' });

export const statusQuery = z.strictObject({
  service: z.string().min(1).max(64).optional().describe('Narrow `services` to the one with this name'),
});

const planSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    trialDays: z.number().int(),
    monthly: z.object({ itemId: z.string(), amount: z.number().int(), currency: z.literal('usd') }),
    annual: z.object({ itemId: z.string(), amount: z.number().int(), currency: z.literal('usd') }),
    credits: z.object({ monthlyAllowance: z.number().int(), overagePerCreditCents: z.number().int() }),
    limits: z.object({ offices: z.number().int(), agents: z.number().int(), integrations: z.number().int() }),
    features: z.array(z.string()),
    entitlements: z
      .array(z.enum(gatedFeatures))
      .describe('The plan-gated features the plan includes, by the names refusals use (`limit`)'),
  })
  .meta({ id: 'Plan' });

const addOnSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    billing: z.literal('monthly'),
    amount: z.number().int(),
    currency: z.literal('usd'),
    unit: z.string(),
    entitlements: z
      .array(z.enum(gatedFeatures))
      .describe('The plan-gated features the add-on adds to any plan'),
  })
  .meta({ id: 'AddOn' });

export const pricingSchema = z
  .object({
    version: z.string().describe('Version of the price list these figures come from'),
    currency: z.literal('usd'),
    trialDays: z.number().int(),
    credits: z.object({ unit: z.string(), definition: z.string() }),
    usage: z.object({ model: z.literal('overage'), description: z.string() }),
    plans: z.array(planSchema),
    addOns: z.array(addOnSchema),
  })
  .meta({ id: 'Pricing' });

export const pricingQuery = z.strictObject({
  plan: z.string().min(1).max(64).optional().describe('Narrow `plans` to the plan with this slug'),
});

export const skillSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    url: z.url().describe('Where the SKILL.md is served'),
    digest: z.string().describe('sha256:<hex> of the SKILL.md bytes'),
    license: z.string().optional(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Skill' });

export const skillsPageSchema = z
  .object({
    data: z.array(skillSchema),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
    limit: z.number().int(),
    total: z.number().int(),
  })
  .meta({ id: 'SkillPage' });

// Query values arrive as text; the document describes what the digits must amount to.
const intParam = (min: number, max: number) =>
  z
    .string()
    .max(String(max).length)
    .regex(/^\d+$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max });

export const skillsQuery = z
  .strictObject({
    limit: intParam(1, 100).optional().describe('Page size, 1 to 100 (default 20)'),
    cursor: z
      .string()
      .min(1)
      .max(512)
      .optional()
      .describe('Opaque cursor from the previous `nextCursor` (preferred)'),
    offset: intParam(0, 1_000_000).optional().describe('Legacy: number of skills to skip'),
  })
  .refine((q) => !(q.cursor !== undefined && q.offset !== undefined), {
    message: 'use either cursor or offset, not both',
    path: ['cursor'],
  });

export const catalogItemSchema = z
  .object({
    id: z.string().describe('Item id accepted by ACP and UCP checkout'),
    kind: z.enum(['plan', 'add_on']),
    name: z.string(),
    description: z.string(),
    unitAmount: z.number().int().describe('Price in integer cents'),
    currency: z.literal('usd'),
    interval: z.enum(['month', 'year']),
    plan: z.string().optional(),
    trialDays: z.number().int(),
  })
  .meta({ id: 'CatalogItem' });

export const catalogSchema = z
  .object({ version: z.string(), currency: z.literal('usd'), items: z.array(catalogItemSchema) })
  .meta({ id: 'Catalog' });

/** One closed body per job type, so that the document states which `input` each type takes. */
const jobRequest = <T extends JobTypeName>(type: T) =>
  z.strictObject({
    type: z.literal(type).describe('What the job does; see the job types in docs/api.md'),
    input: jobInputs[type].optional().describe('Type-specific input'),
  });

export const jobCreateBody = z
  .discriminatedUnion('type', [jobRequest('skills.reindex'), jobRequest('status.report')])
  .meta({ id: 'JobRequest' });

export const jobSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    status: z.enum(jobStatuses),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    startedAt: z.iso.datetime().nullable(),
    finishedAt: z.iso.datetime().nullable(),
    nextAttemptAt: z.iso.datetime().nullable(),
    input: z.unknown(),
    result: z.unknown(),
    error: z.string().nullable(),
    links: z.object({ self: z.url() }),
  })
  .meta({ id: 'Job' });

export const idempotencyKeyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional(),
});

export const jobParams = z.strictObject({ id: z.string().min(1).max(64) });

export const MAX_BATCH = 20;

/**
 * A path and query under /api/v1 in RFC 3986 characters, without a fragment or a `..`: written as
 * one pattern (no lookaround) so that the OpenAPI document states exactly what is accepted.
 */
const PLAIN_API_PATH = /^\/api\/v1(?:[-A-Za-z0-9_~!$&'()*+,;=:@/?%]|\.[-A-Za-z0-9_~!$&'()*+,;=:@/?%])*\.?$/;

export const batchBody = z
  .strictObject({
    requests: z
      .array(
        z.strictObject({
          id: z.string().max(64).optional().describe('Echoed back to correlate results'),
          method: z.literal('GET').default('GET'),
          path: z.string().max(2048).regex(PLAIN_API_PATH, 'must be a plain path under /api/v1'),
          headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
        }),
      )
      .min(1)
      .max(MAX_BATCH, `at most ${MAX_BATCH} requests per batch`),
  })
  .meta({ id: 'BatchRequest' });

export const batchResponseSchema = z
  .object({
    responses: z.array(
      z.object({
        id: z.string().optional(),
        status: z.number().int(),
        headers: z.record(z.string(), z.string()),
        body: z.unknown(),
      }),
    ),
  })
  .meta({ id: 'BatchResponse' });

const credits = z.number().nonnegative();

/** An account's metered credits this period (docs/commerce.md, "Usage and credits"). */
export const usageSchema = z
  .object({
    period: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .describe('The usage period: a UTC calendar month'),
    periodStart: z.iso.datetime(),
    periodEnd: z.iso.datetime(),
    plan: z.string().nullable().describe('The plan whose allowance applies; null without a plan'),
    allowanceCredits: credits.describe("The plan's monthly credit allowance"),
    usedCredits: credits.describe('Credits used this period, to a thousandth'),
    remainingCredits: credits,
    projectedCredits: credits.describe('Credits by the end of the period at the pace so far'),
    projectedOverageCredits: credits.describe('Projected credits beyond the allowance, billed in arrears'),
    projectedOverageCents: z
      .number()
      .int()
      .nonnegative()
      .nullable()
      .describe("What the projected overage costs at the plan's rate; null without a plan"),
    offices: z
      .array(z.object({ officeId: z.string(), usedCredits: credits }))
      .describe('The offices the account pays for, with their credits this period'),
  })
  .meta({ id: 'Usage' });

export const meSchema = z
  .object({
    id: z.string(),
    type: z.enum(['service_auth', 'user']),
    name: z.string(),
    email: z.string().optional(),
    scopes: z.array(z.string()),
    offices: z.union([z.array(z.string()), z.literal('*')]),
    credential: z.enum(['bootstrap_token', 'api_key', 'oauth_access_token']),
    credentialId: z.string().optional().describe('The API key id, for naming or revoking it'),
    clientId: z.string().optional().describe('The OAuth client the access token was issued to'),
    resource: z.string().optional().describe('The resource (audience) the access token is for'),
    account: z
      .object({
        id: z.string(),
        email: z.string(),
        name: z.string(),
        createdAt: z.iso.datetime(),
        memberships: z.array(z.object({ officeId: z.string(), role: z.enum(['owner', 'operator']) })),
      })
      .nullable()
      .describe('The account behind the credential; null for the bootstrap token'),
    usage: usageSchema
      .nullable()
      .optional()
      .describe(
        "The account's metered usage this period; null when nothing is metered (no cluster) or the account has neither plan nor office",
      ),
  })
  .meta({ id: 'Account' });

/** The errors every /api/v1 operation may answer, as the spec lists them. */
export const commonProblems = {
  400: problemSchema.describe('Malformed request'),
  404: problemSchema.describe('Not found'),
  429: problemSchema.describe('Rate limit exceeded; retry after X-RateLimit-Reset seconds'),
} as const;
