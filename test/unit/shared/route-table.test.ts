// RouteTable: which methods a raw path is served with, from the patterns routes were registered with.
import { describe, expect, it } from 'vitest';
import { patternRegex, RouteTable } from '../../../api/shared/route-table.ts';

describe('patternRegex', () => {
  it.each([
    ['/api/v1/jobs/:id', '/api/v1/jobs/j_1', true],
    ['/api/v1/jobs/:id', '/api/v1/jobs/j_1/x', false],
    ['/api/v1/jobs/:id', '/api/v1/jobs/', false],
    ['/oauth/*', '/oauth/token', true],
    ['/files/:name.:ext', '/files/a.txt', true],
    ['/v1.0/x', '/v1x0/x', false],
    ['/time::at', '/time:at', true],
    ['/n/:id(^\\d+$)', '/n/12', true],
    ['/n/:id(^\\d+$)', '/n/ab', false],
  ])('%s matches %s: %s', (pattern, path, matches) => {
    expect(patternRegex(pattern).test(path)).toBe(matches);
  });
});

describe('RouteTable', () => {
  it('unions the methods of every pattern a path matches, leaving OPTIONS out', () => {
    const table = new RouteTable();
    table.add({ method: ['GET', 'POST'], url: '/s/:id', schema: undefined });
    table.add({ method: 'DELETE', url: '/s/special', schema: undefined });
    table.add({ method: 'OPTIONS', url: '/*', schema: undefined });
    expect(table.methodsAt('/s/special').sort()).toEqual(['DELETE', 'GET', 'POST']);
    expect(table.methodsAt('/s/other').sort()).toEqual(['GET', 'POST']);
    expect(table.methodsAt('/elsewhere')).toEqual([]);
    expect(table.entries().map((e) => `${e.method} ${e.url}`)).toEqual([
      'GET /s/:id',
      'POST /s/:id',
      'DELETE /s/special',
    ]);
  });
});
