// Pure: which wire format a path's errors are answered in, from its prefix alone. Errors the router raises
// before any route or scope is chosen (a bad URL, an over-long segment, no route, shutting down) use it.

/** problem: RFC 9457 JSON; acp / ucp: the checkout protocol's error object; page: HTML to browsers, else problem. */
export type Surface = 'problem' | 'acp' | 'ucp' | 'page';

// Whole path segments: `/api/v1` holds `/api/v1` and `/api/v1/...`, never `/api/v10`. The checkout prefixes are
// the ACP and UCP adapters' routes (a unit test ties them together); /mcp answers its HTTP errors as problems.
const PREFIXES: readonly (readonly [string, Surface])[] = [
  ['/api/v1', 'problem'],
  ['/api/snapshots', 'problem'],
  ['/mcp', 'problem'],
  ['/billing/webhooks', 'problem'],
  ['/checkout_sessions', 'acp'],
  ['/agentic_commerce', 'acp'],
  ['/ucp/v1', 'ucp'],
];

function under(path: string, prefix: string): boolean {
  if (!path.startsWith(prefix)) return false;
  const next = path.charAt(prefix.length);
  return next === '' || next === '/' || next === '?';
}

export function surfaceOfPath(path: string): Surface {
  for (const [prefix, surface] of PREFIXES) if (under(path, prefix)) return surface;
  return 'page';
}

/**
 * True when the Accept header ranks text/html above JSON: a browser's navigation, not an API client
 * (a lone wildcard range, or no header at all, ranks them equally and gets JSON).
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { range: range.trim(), q: q === undefined ? 1 : Number(q) };
  });
  // RFC 9110 12.5.1: the most specific range that matches a type gives its weight.
  const weight = (type: string): number => {
    const [major] = type.split('/');
    for (const candidate of [type, `${major}/*`, '*/*']) {
      const hit = ranges.find((r) => r.range === candidate);
      if (hit) return Number.isNaN(hit.q) ? 0 : hit.q;
    }
    return 0;
  };
  const html = weight('text/html');
  return html > 0 && html > Math.max(weight('application/json'), weight('application/problem+json'));
}
