// The stored login as a token source: refreshes when due or refused, saves the rotated pair, and
// lets parallel commands share one refresh (with a stand-in for the authorization server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError } from '../../../cli/sdk/authorization-server.ts';
import { CredentialStore, type StoredLogin } from '../../../cli/sdk/credential-store.ts';
import { StoredLoginSource } from '../../../cli/sdk/stored-login.ts';

const endpoint = 'https://colony.example.com';
const now = Date.parse('2026-11-23T12:00:00.000Z');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(over: Partial<StoredLogin> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'colony-login-'));
  dirs.push(dir);
  const store = new CredentialStore(dir);
  store.save(endpoint, {
    accessToken: 'at-1',
    refreshToken: 'rt-1',
    expiresAt: new Date(now + 3600_000).toISOString(),
    scope: 'offices:read',
    issuer: endpoint,
    resource: endpoint,
    clientId: 'colony-cli',
    ...over,
  });
  const calls: string[] = [];
  let n = 1;
  const refresh = async (_issuer: string, refreshToken: string, resource: string) => {
    calls.push(`${refreshToken}@${resource}`);
    await new Promise((r) => setTimeout(r, 10));
    n++;
    return {
      access_token: `at-${n}`,
      refresh_token: `rt-${n}`,
      expires_in: 3600,
      token_type: 'bearer' as const,
    };
  };
  const source = () => new StoredLoginSource(store, endpoint, { now: () => now, refresh });
  return { store, calls, source };
}

describe('StoredLoginSource', () => {
  it('answers a live access token without refreshing', async () => {
    const { source, calls } = setup();
    expect(await source().token()).toBe('at-1');
    expect(calls).toEqual([]);
  });

  it('refreshes an expired token and saves the rotated pair', async () => {
    const { source, calls, store } = setup({ expiresAt: new Date(now - 1).toISOString() });
    expect(await source().token()).toBe('at-2');
    expect(calls).toEqual([`rt-1@${endpoint}`]);
    expect(store.get(endpoint)).toMatchObject({
      accessToken: 'at-2',
      refreshToken: 'rt-2',
      expiresAt: new Date(now + 3600_000).toISOString(),
    });
  });

  it('spends the refresh token once when two commands find it expired together', async () => {
    const { source, calls } = setup({ expiresAt: new Date(now - 1).toISOString() });
    const tokens = await Promise.all([source().token(), source().token(), source().token()]);
    expect(tokens).toEqual(['at-2', 'at-2', 'at-2']);
    expect(calls).toHaveLength(1);
  });

  it('refreshes after a 401 for the stored token, but not when another command already did', async () => {
    const { source, calls } = setup();
    expect(await source().renew('at-1')).toBe('at-2');
    expect(await source().renew('at-1')).toBe('at-2');
    expect(calls).toHaveLength(1);
  });

  it('says to log in again when there is nothing to refresh with, or no login at all', async () => {
    const { source } = setup({ expiresAt: new Date(now - 1).toISOString(), refreshToken: null });
    await expect(source().token()).rejects.toMatchObject({ code: 'login_expired' });
    const other = new StoredLoginSource(new CredentialStore(dirs[0] as string), 'https://other.example.com');
    expect(() => other.load()).toThrow(AuthError);
    expect(() => other.load()).toThrow(
      'not logged in to https://other.example.com; run `colony login --endpoint https://other.example.com` or set COLONY_API_KEY',
    );
  });
});
