// Every HTML page refuses to be framed and runs under a strict Content-Security-Policy; JSON answers
// carry neither header. Through the real server, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServerOn, type TestServer } from '../support/server.ts';
import { storageTargets } from '../support/storage-targets.ts';

const pages = [
  '/signin',
  '/signup',
  '/legal/terms',
  '/legal/privacy',
  '/problems/not_found',
  '/checkout/cs_missing',
];

describe.each(storageTargets)('HTML pages on $name', (target) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServerOn(target, {});
  });
  afterAll(() => s.close());

  it.each(pages)('%s refuses framing and sets a CSP without script sources', async (url) => {
    const res = await s.app.inject({ url });
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
  });

  it('sends neither header with JSON', async () => {
    const res = await s.app.inject({ url: '/api/v1' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});
