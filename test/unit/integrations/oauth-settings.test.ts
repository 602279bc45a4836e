// The Connect flow's configuration: the operator's OAuth clients and the manifest's provider URLs.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../api/config.ts';
import { parseOAuthClients } from '../../../api/connect/oauth-clients.ts';
import { oauthSchema } from '../../../integrations/registry/layers-schema.ts';

describe('COLONY_OAUTH_CLIENTS', () => {
  it('reads confidential and public clients by integration id', () => {
    const clients = parseOAuthClients(
      JSON.stringify({
        'google-workspace': { clientId: 'id-1', clientSecret: 'shh' },
        notion: { clientId: 'id-2' },
      }),
    );
    expect(clients.get('google-workspace')).toEqual({ clientId: 'id-1', clientSecret: 'shh' });
    expect(clients.get('notion')).toEqual({ clientId: 'id-2', clientSecret: undefined });
    expect(parseOAuthClients(undefined).size).toBe(0);
  });

  it('names the variable and path of a bad value without repeating the secret', () => {
    expect(() => parseOAuthClients('{not json')).toThrow(ConfigError);
    try {
      parseOAuthClients(JSON.stringify({ x: { clientSecret: 'very-secret-value' } }));
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toContain('COLONY_OAUTH_CLIENTS.x.clientId');
      expect((err as Error).message).not.toContain('very-secret-value');
    }
  });
});

describe('oauth provider URLs', () => {
  const base = { accessTokenKey: 'A_TOKEN', refreshTokenKey: 'R_TOKEN' };
  const parse = (url: string) =>
    oauthSchema.safeParse({ ...base, authorizationUrl: url, tokenUrl: 'https://p.example/token' });

  it('take https anywhere and plain http only on a loopback host', () => {
    expect(parse('https://accounts.example/auth').success).toBe(true);
    expect(parse('http://127.0.0.1:4000/auth').success).toBe(true);
    expect(parse('http://localhost/auth').success).toBe(true);
    const remote = parse('http://accounts.example/auth');
    expect(remote.success).toBe(false);
    expect(remote.error?.issues[0]?.message).toContain('plain http only on a loopback host');
    expect(parse('ftp://127.0.0.1/auth').success).toBe(false);
  });
});
