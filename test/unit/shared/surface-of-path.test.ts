// surfaceOfPath and prefersHtml: which format an error outside any route is answered in.
import { describe, expect, it } from 'vitest';
import { acpAdapter } from '../../../api/acp/adapter.ts';
import { prefersHtml, surfaceOfPath } from '../../../api/shared/surface-of-path.ts';

describe('surfaceOfPath', () => {
  it.each([
    ['/api/v1', 'problem'],
    ['/api/v1/jobs/j1', 'problem'],
    ['/api/v1?limit=1', 'problem'],
    ['/api/snapshots/s1', 'problem'],
    ['/mcp', 'problem'],
    ['/billing/webhooks/stripe', 'problem'],
    ['/checkout_sessions/cs_1/complete', 'acp'],
    ['/agentic_commerce/delegate_payment', 'acp'],
    ['/ucp/v1/checkout-sessions', 'ucp'],
    ['/api/v10', 'page'],
    ['/mcpx', 'page'],
    ['/signin', 'page'],
    ['/', 'page'],
  ])('answers %s as %s', (path, surface) => {
    expect(surfaceOfPath(path)).toBe(surface);
  });

  it("covers the ACP adapter's session routes", () => {
    expect(surfaceOfPath(acpAdapter.routes.sessions)).toBe('acp');
  });
});

describe('prefersHtml', () => {
  it.each([
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['text/html', true],
    ['application/json, text/html;q=0.5', false],
    ['*/*', false],
    ['', false],
    [undefined, false],
    ['text/*', true],
    ['text/html;q=0, */*', false],
    ['application/problem+json, text/html', false],
  ])('reads %s as %s', (accept, html) => {
    expect(prefersHtml(accept)).toBe(html);
  });
});
