// Loads and validates the versioned price list (plans.yaml) that pricing, catalog and checkout share.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

const slug = z.string().regex(/^[a-z][a-z0-9-]{1,30}$/);
const cents = z.number().int().nonnegative();

/** The plan-gated features the code checks; plans.yaml names them beside its human-readable list. */
export const gatedFeatures = ['office_services', 'task_templates', 'office_databases', 'backups'] as const;
export type GatedFeature = (typeof gatedFeatures)[number];
const entitlements = z.array(z.enum(gatedFeatures));

export const priceListSchema = z.strictObject({
  version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  currency: z.literal('usd'),
  trialDays: z.number().int().positive(),
  credits: z.strictObject({ unit: z.string(), definition: z.string() }),
  usage: z.strictObject({ model: z.literal('overage'), description: z.string() }),
  plans: z
    .array(
      z.strictObject({
        slug,
        name: z.string(),
        description: z.string(),
        monthlyPriceCents: cents,
        annualPriceCents: cents,
        monthlyCredits: z.number().int().positive(),
        overagePerCreditCents: cents,
        limits: z.strictObject({
          offices: z.number().int().positive(),
          agents: z.number().int().positive(),
          integrations: z.number().int().positive(),
        }),
        features: z.array(z.string()),
        entitlements,
      }),
    )
    .min(1),
  addOns: z.array(
    z.strictObject({
      id: z.string().regex(/^addon_[a-z0-9_]+$/),
      slug,
      name: z.string(),
      description: z.string(),
      billing: z.literal('monthly'),
      priceCents: cents,
      unit: z.string(),
      entitlements,
    }),
  ),
});

export type PriceList = z.infer<typeof priceListSchema>;
export type Plan = PriceList['plans'][number];
export type AddOn = PriceList['addOns'][number];

const defaultFile = new URL('./plans.yaml', import.meta.url);

export function loadPriceList(file: URL | string = defaultFile): PriceList {
  const parsed = priceListSchema.safeParse(parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid price list ${String(file)}: ${where}`);
  }
  const slugs = parsed.data.plans.map((p) => p.slug);
  if (new Set(slugs).size !== slugs.length)
    throw new Error(`invalid price list ${String(file)}: duplicate plan slug`);
  return parsed.data;
}
