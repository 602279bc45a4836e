// Validators built from the official ACP and UCP JSON schemas in a conformance folder (the folder is
// not the project's: it is passed in, `../shared/conformance` in CI).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { ACP_VERSIONS, type AcpVersion } from '../../api/acp/versions.ts';

// ajv-formats is CommonJS; under nodenext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

export const UCP_VERSIONS = ['2026-01-23', '2026-04-08'] as const;
export type UcpVersion = (typeof UCP_VERSIONS)[number];

export type Validator = (value: unknown) => string[];

function newAjv(): Ajv2020 {
  // The official schemas carry annotations (example, ucp_request, name) that strict mode would reject.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

const describe = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'} ${JSON.stringify(e.params)}`);

function validator(fn: ValidateFunction): Validator {
  return (value) => (fn(value) ? [] : describe(fn.errors));
}

export interface AcpValidators {
  session: Validator;
  error: Validator;
  /** The discovery document (2026-04-17 only). */
  discovery?: Validator;
  /** An order webhook body (`WebhookEvent` of openapi.agentic_checkout_webhook.yaml). */
  webhookEvent: Validator;
}

/**
 * The webhook OpenAPI document's `WebhookEvent`. From 2026-04-17 its order refers to the checkout
 * document's Order (`./openapi.agentic_checkout.yaml#/...`), so both documents are registered under
 * ids that make that relative reference resolve.
 */
function webhookEventValidator(conformanceDir: string, version: AcpVersion): Validator {
  const dir = join(conformanceDir, 'acp', version, 'openapi');
  const base = `https://conformance.colony.test/acp/${version}/`;
  const ajv = newAjv();
  for (const name of ['openapi.agentic_checkout.yaml', 'openapi.agentic_checkout_webhook.yaml']) {
    const doc = parseYaml(readFileSync(join(dir, name), 'utf8')) as { components: unknown };
    // Only the components: the rest of an OpenAPI document is not a schema.
    ajv.addSchema({ $id: `${base}${name}`, components: doc.components });
  }
  return validator(
    ajv.compile({ $ref: `${base}openapi.agentic_checkout_webhook.yaml#/components/schemas/WebhookEvent` }),
  );
}

export function acpValidators(conformanceDir: string, version: AcpVersion): AcpValidators {
  const file = join(conformanceDir, 'acp', version, 'json-schema', 'schema.agentic_checkout.json');
  const schema = JSON.parse(readFileSync(file, 'utf8')) as { $id?: string; $defs: Record<string, unknown> };
  const ajv = newAjv();
  const id = schema.$id ?? `acp-${version}`;
  ajv.addSchema(schema, schema.$id ? undefined : id);
  const def = (name: string) => validator(ajv.compile({ $ref: `${id}#/$defs/${name}` }));
  return {
    session: def('CheckoutSession'),
    error: def('Error'),
    webhookEvent: webhookEventValidator(conformanceDir, version),
    ...('DiscoveryResponse' in schema.$defs ? { discovery: def('DiscoveryResponse') } : {}),
  };
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

export interface UcpValidators {
  checkout: Validator;
  /** error_response exists from 2026-04-08 on. */
  errorResponse?: Validator;
  businessProfile: Validator;
}

export function ucpValidators(conformanceDir: string, version: UcpVersion): UcpValidators {
  const root = join(conformanceDir, 'ucp', `v${version}`, 'source');
  const ajv = newAjv();
  const ids = new Set<string>();
  const add = (schema: { $id?: string }) => {
    if (schema.$id && !ids.has(schema.$id)) {
      ids.add(schema.$id);
      ajv.addSchema(schema);
    }
  };
  const schemasDir = join(root, 'schemas');
  for (const file of jsonFiles(schemasDir)) {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as { $id?: string };
    add(schema);
    // The published profile schema (id .../discovery/profile.json) refers to `../schemas/ucp.json`, which
    // resolves under .../schemas/schemas/: every schema is also registered there so that reference holds.
    add({ ...schema, $id: `https://ucp.dev/schemas/schemas/${relative(schemasDir, file)}` });
  }
  for (const file of jsonFiles(join(root, 'discovery'))) add(JSON.parse(readFileSync(file, 'utf8')));
  const ref = (r: string) => validator(ajv.compile({ $ref: r }));
  const errorId = 'https://ucp.dev/schemas/shopping/types/error_response.json';
  return {
    checkout: ref('https://ucp.dev/schemas/shopping/checkout.json'),
    ...(ids.has(errorId) ? { errorResponse: ref(errorId) } : {}),
    businessProfile: ref('https://ucp.dev/schemas/discovery/profile.json#/$defs/business_profile'),
  };
}

/** Every validator the folder supports, built once. */
export function loadConformance(conformanceDir: string) {
  return {
    acp: Object.fromEntries(ACP_VERSIONS.map((v) => [v, acpValidators(conformanceDir, v)])) as Record<
      AcpVersion,
      AcpValidators
    >,
    ucp: Object.fromEntries(UCP_VERSIONS.map((v) => [v, ucpValidators(conformanceDir, v)])) as Record<
      UcpVersion,
      UcpValidators
    >,
  };
}

/** The folder tests use: COLONY_CONFORMANCE_DIR, or `../shared/conformance` beside the checkout. */
export function defaultConformanceDir(): string {
  return (
    process.env.COLONY_CONFORMANCE_DIR ?? new URL('../../../shared/conformance', import.meta.url).pathname
  );
}
