// audienceRefusal and the scope rules of authorization requests: which tokens a resource accepts,
// and which scopes a request may ask for.
import { describe, expect, it } from 'vitest';
import { audienceRefusal, colonyResources } from '../../../api/identity/oauth/resources.ts';
import { defaultResourceFor, ungrantableScope } from '../../../api/identity/oauth/scope-grants.ts';

const base = 'https://colony.example';
const { api, mcp } = colonyResources(base);

describe('audienceRefusal', () => {
  it.each([
    ['a token for the API at the API', base, api],
    ['a token for /mcp at /mcp', `${base}/mcp`, mcp],
    ['a token for the base URL at /mcp', base, mcp],
  ])('accepts %s', (_what, audience, resource) => {
    expect(audienceRefusal(base, audience, resource)).toBeUndefined();
  });

  it.each([
    ['a token for /mcp at the API', `${base}/mcp`, api, `token audience ${base}/mcp is not this resource`],
    ['a token for another service', 'https://other.example', mcp, 'token audience https://other.example'],
    ['a userinfo token at the API', undefined, api, 'token audience is none'],
    ['a userinfo token at /mcp', undefined, mcp, `resource=${base}/mcp`],
  ])('refuses %s, saying why', (_what, audience, resource, says) => {
    expect(audienceRefusal(base, audience, resource)).toContain(says);
  });
});

describe('defaultResourceFor', () => {
  it.each([
    ['memory:read', base],
    ['openid offices:read', base],
    ['openid email offline_access', undefined],
    [undefined, undefined],
  ])('gives the scope %s the resource %s', (scope, resource) => {
    expect(defaultResourceFor(base, scope)).toBe(resource);
  });
});

describe('ungrantableScope', () => {
  it.each([
    ['memory scopes for /mcp', 'memory:read memory:write', [`${base}/mcp`]],
    ['any resource scope for the base URL', 'offices:read keys:write memory:read', [base]],
    ['a sign-in with a refresh token', 'openid profile email offline_access', []],
    ['sign-in scopes beside a resource', 'openid email memory:read', [`${base}/mcp`]],
    ['scopes split across two resources', 'offices:read memory:write', [base, `${base}/mcp`]],
    ['nothing', undefined, []],
  ])('grants %s', (_what, scope, resources) => {
    expect(ungrantableScope(base, scope, resources)).toBeUndefined();
  });

  it.each([
    ['a scope /mcp does not accept', 'memory:read offices:read', [`${base}/mcp`], 'offices:read'],
    ['a resource scope with no resource', 'keys:write', [], 'keys:write'],
    ['a scope Colony does not know', 'memory:read admin', [base], 'admin'],
    ['email without openid', 'email memory:read', [base], 'email'],
  ])('refuses %s, naming it', (_what, scope, resources, named) => {
    expect(ungrantableScope(base, scope, resources)?.scope).toBe(named);
  });
});
