// The CLI's SDK against the server's own /openapi.json: every operation it calls exists with that
// method and path and answers the component it is typed as, and every SDK type has exactly the
// fields (required or optional) of its component. A change to the API's zod schemas that the SDK
// does not follow fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sdkShapes } from '../../cli/sdk/api-types.ts';
import { operations } from '../../cli/sdk/operations.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
  required?: string[];
}
interface OpenApi {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
}

let s: TestServer;
let doc: OpenApi;

beforeAll(async () => {
  s = await startTestServer();
  doc = (await s.app.inject({ url: '/openapi.json' })).json();
});
afterAll(() => s?.close());

describe('the SDK operations table', () => {
  it.each(Object.entries(operations))('%s is in /openapi.json with its method, path and answer', (id, op) => {
    const described = doc.paths[op.path]?.[op.method.toLowerCase()];
    expect(described, `${op.method} ${op.path}`).toBeDefined();
    expect((described as unknown as { operationId: string }).operationId).toBe(id);
    if (op.answers === null) return;
    const success = Object.entries(described?.responses ?? {}).find(([status]) => status.startsWith('2'));
    expect(success?.[1].content?.['application/json']?.schema.$ref).toBe(
      `#/components/schemas/${op.answers}`,
    );
  });
});

describe('the SDK types', () => {
  it.each(Object.entries(sdkShapes))('%s has the fields of its component', (component, fields) => {
    const schema = doc.components.schemas[component];
    expect(schema, component).toBeDefined();
    const required = new Set(schema?.required ?? []);
    const present = Object.keys(schema?.properties ?? {});
    const sdk = Object.entries(fields as Record<string, 'required' | 'optional'>);
    // Every field the SDK types is one the API sends, required exactly when the API requires it.
    expect(Object.fromEntries(sdk)).toEqual(
      Object.fromEntries(
        sdk.map(([name]) => [
          name,
          present.includes(name) ? (required.has(name) ? 'required' : 'optional') : 'absent',
        ]),
      ),
    );
    // And every field the API requires is typed, except where the SDK reads only part of an answer.
    const partial = new Set(['IntegrationDefinition']);
    if (!partial.has(component)) expect([...required].filter((name) => !(name in fields))).toEqual([]);
  });
});
