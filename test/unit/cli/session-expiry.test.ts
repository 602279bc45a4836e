// When a stored login is refreshed, and what a token response turns into.
import { describe, expect, it } from 'vitest';
import { EXPIRY_MARGIN_MS, loginFromTokens, needsRefresh } from '../../../cli/sdk/session-expiry.ts';

const now = Date.parse('2026-11-23T12:00:00.000Z');
const at = (ms: number) => new Date(now + ms).toISOString();

describe('needsRefresh', () => {
  it.each([
    ['long before expiry', at(3600_000), false],
    ['just outside the margin', at(EXPIRY_MARGIN_MS + 1000), false],
    ['inside the margin', at(EXPIRY_MARGIN_MS - 1000), true],
    ['at expiry', at(0), true],
    ['after expiry', at(-5000), true],
    ['with no stated expiry', null, false],
  ])('%s → %s', (_case, expiresAt, expected) => {
    expect(needsRefresh({ expiresAt }, now)).toBe(expected);
  });
});

describe('loginFromTokens', () => {
  const base = {
    issuer: 'https://c.example.com',
    resource: 'https://c.example.com',
    clientId: 'colony-cli',
    scope: 'offices:read keys:write',
    refreshToken: 'old-refresh',
  };

  it('stores the expiry as a date from expires_in, and the rotated refresh token', () => {
    expect(
      loginFromTokens(
        { access_token: 'a', refresh_token: 'new', expires_in: 3600, scope: 'offices:read' },
        base,
        now,
      ),
    ).toEqual({
      accessToken: 'a',
      refreshToken: 'new',
      expiresAt: at(3600_000),
      scope: 'offices:read',
      issuer: base.issuer,
      resource: base.resource,
      clientId: 'colony-cli',
    });
  });

  it('keeps the refresh token and scope a response leaves out; no expires_in means no expiry', () => {
    const l = loginFromTokens({ access_token: 'a' }, base, now);
    expect(l).toMatchObject({ refreshToken: 'old-refresh', scope: base.scope, expiresAt: null });
    expect(
      loginFromTokens({ access_token: 'a' }, { ...base, refreshToken: undefined }, now).refreshToken,
    ).toBeNull();
  });
});
