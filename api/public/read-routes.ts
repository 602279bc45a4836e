// The read operations of /api/v1: index, status, pricing, skills and the commerce catalog.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Storage } from '../app-storage.ts';
import type { Config } from '../config.ts';
import type { CatalogItem } from '../domain/pricing/catalog.ts';
import type { PriceList } from '../domain/pricing/price-list.ts';
import { overallState, type Probe, runProbe } from '../domain/status/probes.ts';
import { cacheJson, sendCachedJson } from '../shared/cached-json.ts';
import { settledAnswer } from '../shared/json-serializer.ts';
import { ProblemError } from '../shared/problem.ts';
import { presentPricing } from './presenters.ts';
import { standardProblems } from './problem-responses.ts';
import {
  catalogSchema,
  indexSchema,
  pricingQuery,
  pricingSchema,
  skillsPageSchema,
  skillsQuery,
  statusQuery,
  statusSchema,
} from './schemas.ts';
import { decodeSkillsCursor } from './skills-cursor.ts';
import { SkillsListing } from './skills-listing.ts';

const DEFAULT_PAGE = 20;

export interface ReadRoutesOptions {
  config: Config;
  storage: Storage;
  prices: PriceList;
  catalog: CatalogItem[];
  probes: () => Probe[];
  now: () => number;
}

export function registerReadRoutes(fastify: FastifyInstance, opts: ReadRoutesOptions): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { config, prices } = opts;
  const base = config.baseUrl;

  // The same document for every request: built and serialised once.
  const index = settledAnswer({
    name: 'Colony API' as const,
    version: 'v1',
    environment: config.environment,
    links: {
      self: { href: `${base}/api/v1`, method: 'GET' as const },
      status: { href: `${base}/api/v1/status`, method: 'GET' as const },
      pricing: { href: `${base}/api/v1/pricing`, method: 'GET' as const },
      skills: { href: `${base}/api/v1/skills`, method: 'GET' as const },
      catalog: { href: `${base}/api/v1/commerce/catalog`, method: 'GET' as const },
      jobs: { href: `${base}/api/v1/jobs`, method: 'POST' as const },
      batch: { href: `${base}/api/v1/batch`, method: 'POST' as const },
      me: { href: `${base}/api/v1/me`, method: 'GET' as const },
      openapi: { href: `${base}/openapi.json`, method: 'GET' as const },
      docs: { href: `${base}/llms.txt`, method: 'GET' as const },
    },
  });

  app.get(
    '/',
    {
      schema: {
        operationId: 'getApiIndex',
        summary: 'API index with links to every resource',
        tags: ['public'],
        response: { 200: indexSchema, ...standardProblems },
      },
    },
    () => index,
  );

  app.get(
    '/status',
    {
      schema: {
        operationId: 'getPlatformStatus',
        summary: 'Health of each running part of the platform',
        tags: ['public'],
        querystring: statusQuery,
        response: { 200: statusSchema, ...standardProblems },
      },
    },
    async (request) => {
      const wanted = request.query.service;
      const probes = opts.probes().filter((p) => wanted === undefined || p.name === wanted);
      if (wanted !== undefined && probes.length === 0) {
        const known = opts
          .probes()
          .map((p) => p.name)
          .join(', ');
        throw new ProblemError('not_found', `No service named "${wanted}". Known services: ${known}.`);
      }
      const services = await Promise.all(probes.map((p) => runProbe(p)));
      return { status: overallState(services), environment: config.environment, services };
    },
  );

  // The full price list never changes while the process runs, so its bytes are built once.
  const fullPricing = cacheJson(presentPricing(prices));
  const listing = new SkillsListing(opts.storage.skills, base, opts.now);
  app.get(
    '/pricing',
    {
      schema: {
        operationId: 'getPricing',
        summary: 'Plans, credit allowances, add-ons and usage charging',
        tags: ['public'],
        querystring: pricingQuery,
        response: { 200: pricingSchema, ...standardProblems },
      },
    },
    // Not async, like /skills below: the full list is sent before the handler returns.
    (request, reply) => {
      const slug = request.query.plan;
      if (slug === undefined) return void sendCachedJson(request, reply, fullPricing);
      const narrowed = presentPricing(prices, slug);
      if (narrowed.plans.length === 0) {
        const known = prices.plans.map((p) => p.slug).join(', ');
        throw new ProblemError('not_found', `No plan with slug "${slug}". Plans: ${known}.`);
      }
      return narrowed;
    },
  );

  app.get(
    '/skills',
    {
      schema: {
        operationId: 'listSkills',
        summary: 'Published agent skills, paginated',
        tags: ['public'],
        querystring: skillsQuery,
        response: { 200: skillsPageSchema, ...standardProblems },
      },
    },
    // Not async: a cached page is sent before the handler returns, with no promise for Fastify to
    // settle; only a page that must be read from the database answers later.
    (request, reply) => {
      const { limit = DEFAULT_PAGE, cursor, offset } = request.query;
      const afterName = cursor === undefined ? undefined : decodeSkillsCursor(cursor);
      if (cursor !== undefined && afterName === undefined) {
        throw new ProblemError(
          'invalid_request',
          'cursor is not one this API issued; pass nextCursor unchanged',
          {
            errors: [{ location: 'query.cursor', message: 'unrecognised cursor' }],
          },
        );
      }
      const page = listing.page(
        afterName !== undefined ? { limit, afterName } : { limit, offset: offset ?? 0 },
      );
      if (!(page instanceof Promise)) return void sendCachedJson(request, reply, page);
      return page.then((loaded) => void sendCachedJson(request, reply, loaded));
    },
  );

  const catalog = {
    version: prices.version,
    currency: 'usd' as const,
    items: opts.catalog,
  };
  app.get(
    '/commerce/catalog',
    {
      schema: {
        operationId: 'getCommerceCatalog',
        summary: 'Items both checkout protocols sell, in integer cents USD',
        tags: ['public', 'commerce'],
        response: { 200: catalogSchema, ...standardProblems },
      },
    },
    async () => catalog,
  );
}
