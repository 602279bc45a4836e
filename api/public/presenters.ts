// Pure: storage records and the price list as the public API's response bodies.

import type { JobRecord } from '../domain/jobs/jobs-repo.ts';
import { planItemId } from '../domain/pricing/catalog.ts';
import type { PriceList } from '../domain/pricing/price-list.ts';
import type { SkillSummary } from '../domain/skills/skills-repo.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function presentPricing(prices: PriceList, onlyPlan?: string) {
  return {
    version: prices.version,
    currency: prices.currency,
    trialDays: prices.trialDays,
    credits: prices.credits,
    usage: prices.usage,
    plans: prices.plans
      .filter((p) => onlyPlan === undefined || p.slug === onlyPlan)
      .map((p) => ({
        slug: p.slug,
        name: p.name,
        description: p.description,
        trialDays: prices.trialDays,
        monthly: {
          itemId: planItemId(p.slug, 'monthly'),
          amount: p.monthlyPriceCents,
          currency: 'usd' as const,
        },
        annual: {
          itemId: planItemId(p.slug, 'annual'),
          amount: p.annualPriceCents,
          currency: 'usd' as const,
        },
        credits: { monthlyAllowance: p.monthlyCredits, overagePerCreditCents: p.overagePerCreditCents },
        limits: p.limits,
        features: p.features,
        entitlements: p.entitlements,
      })),
    addOns: prices.addOns.map((a) => ({
      id: a.id,
      slug: a.slug,
      name: a.name,
      description: a.description,
      billing: a.billing,
      amount: a.priceCents,
      currency: 'usd' as const,
      unit: a.unit,
      entitlements: a.entitlements,
    })),
  };
}

export function skillFileUrl(baseUrl: string, name: string): string {
  return `${baseUrl}/.well-known/agent-skills/${name}/SKILL.md`;
}

export function presentSkill(baseUrl: string, s: SkillSummary) {
  return {
    name: s.name,
    description: s.description,
    url: skillFileUrl(baseUrl, s.name),
    digest: s.digest,
    ...(typeof s.metadata.license === 'string' ? { license: s.metadata.license } : {}),
    updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

export function jobUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/api/v1/jobs/${id}`;
}

export function presentJob(baseUrl: string, j: JobRecord) {
  const waiting = j.status === 'queued' || j.status === 'retrying';
  return {
    id: j.id,
    type: j.type,
    status: j.status,
    attempts: j.attempts,
    maxAttempts: j.maxAttempts,
    createdAt: new Date(j.createdAt).toISOString(),
    updatedAt: new Date(j.updatedAt).toISOString(),
    startedAt: iso(j.startedAt),
    finishedAt: iso(j.finishedAt),
    nextAttemptAt: waiting ? iso(j.runAt) : null,
    input: j.input,
    result: j.result,
    error: j.error,
    links: { self: jobUrl(baseUrl, j.id) },
  };
}
