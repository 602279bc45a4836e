// Requests generated from /openapi.json (schemathesis, test/support/schemathesis.toml) against the
// real server on SQLite and PostgreSQL: no answer is a 5xx, and every answer, valid input or not,
// agrees with the document (status, media type, body schema, headers). Authenticated operations run
// with the bootstrap token. Alone: `npx vitest run test/integration/openapi-fuzz.test.ts`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzOpenApi } from '../support/schemathesis.ts';
import { type ListeningServer, startListeningServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const TOKEN = 'openapi-fuzz-bootstrap-token-0123456789';

describe.each(storageTargets)('/openapi.json fuzzed on $name', (target) => {
  let s: ListeningServer;
  beforeAll(async () => {
    s = await startListeningServer(target, {
      COLONY_BOOTSTRAP_TOKEN: TOKEN,
      // One client sends a few thousand requests: with the default budget most would be 429s that
      // test nothing. The budget itself is tested in rate-limit.test.ts.
      COLONY_API_RATE_LIMIT: '1000000',
    });
  });
  afterAll(() => s.close());

  it('finds no server error and no disagreement with the document', { timeout: 150_000 }, async () => {
    const run = await fuzzOpenApi(s.baseUrl, { authorization: `Bearer ${TOKEN}` });
    expect(run.findings, run.details).toEqual([]);
  });
});
