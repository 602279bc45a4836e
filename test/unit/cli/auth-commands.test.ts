// Argument handling of login, whoami, logout and keys, and the pure pieces they print with.
import * as oauth from 'openid-client';
import { describe, expect, it } from 'vitest';
import { describeMe } from '../../../cli/commands/auth/whoami.ts';
import { createKeyInput } from '../../../cli/commands/keys/create.ts';
import { keyColumns } from '../../../cli/commands/keys/list.ts';
import { renderTable } from '../../../cli/output.ts';
import { type ParsedLine, parseCommandLine } from '../../../cli/parse-command-line.ts';
import { runCli } from '../../../cli/run.ts';
import { describeOAuthFailure, oauthErrorMessage } from '../../../cli/sdk/authorization-server.ts';
import type { Me } from '../../../cli/sdk/client.ts';

async function colony(...argv: string[]) {
  const err: string[] = [];
  const out: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env: {}, cwd: '/' });
  return { code, err: err.join('\n'), out: out.join('\n') };
}

const command = (line: ParsedLine) => {
  if (line.kind !== 'command') throw new Error(`not a command: ${JSON.stringify(line)}`);
  return { path: line.spec.path.join(' '), args: line.args, flags: line.flags };
};

describe('parseCommandLine', () => {
  it('lets boolean flags stand before a positional', () => {
    expect(command(parseCommandLine(['keys', 'revoke', '--json', 'key_x']))).toEqual({
      path: 'keys revoke',
      args: ['key_x'],
      flags: { json: true },
    });
    expect(command(parseCommandLine(['backups', 'restore', '--wait', 'snap_1'])).args).toEqual(['snap_1']);
  });

  it('takes values after other flags, inline or separate', () => {
    expect(command(parseCommandLine(['login', '--endpoint', 'https://c.dev', '--scope=a b'])).flags).toEqual({
      endpoint: 'https://c.dev',
      scope: 'a b',
    });
  });

  it('finds the top-level and grouped commands', () => {
    expect(command(parseCommandLine(['whoami'])).path).toBe('whoami');
    expect(command(parseCommandLine(['keys', 'create', '--name', 'x'])).path).toBe('keys create');
    expect(
      command(
        parseCommandLine(['integrations', 'secret', 'set', 'slack', '--office', 'a', '--from-env-file', 'f']),
      ).path,
    ).toBe('integrations secret set');
  });

  it('finds nothing for inherited property names', () => {
    expect(() => parseCommandLine(['toString'])).toThrow('unknown command "toString"');
    expect(() => parseCommandLine(['keys', 'constructor'])).toThrow('unknown command "constructor"');
  });
});

describe('usage errors exit 2 before any request', () => {
  it.each([
    [['login', '--endpoint']],
    [['login', 'https://c.dev']],
    [['whoami', 'someone']],
    [['logout', '--endpoint']],
    [['keys', 'create']],
    [['keys', 'create', '--name', 'x', '--scopes']],
    [['keys', 'revoke']],
    [['keys', 'nope']],
  ])('colony %s', async (argv) => {
    expect((await colony(...argv)).code).toBe(2);
  });

  it('prints one command’s help, with its flags, for --help', async () => {
    const help = await colony('login', '--help');
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toMatch(/^Sign in through the browser/);
    expect(help.out).toContain('colony login [flags]');
    expect(help.out).toMatch(/--scope "<scopes>" +Space-separated scopes/);
    expect(help.out).toMatch(/--endpoint <url> +The Colony API/);
  });
});

describe('createKeyInput', () => {
  it('turns the flags into the API body', () => {
    expect(
      createKeyInput({
        name: 'ci',
        scopes: 'offices:read, backups:read',
        offices: 'a,b',
        'expires-in-days': 30,
      }),
    ).toEqual({
      name: 'ci',
      scopes: ['offices:read', 'backups:read'],
      offices: ['a', 'b'],
      expiresInDays: 30,
    });
    expect(createKeyInput({ name: 'ci' })).toEqual({ name: 'ci' });
  });

  // The parser checks the flags against the command table before createKeyInput sees them.
  it.each([
    [[], '--name is required'],
    [['--name', ' '], '--name must not be empty'],
    [['--name', 'x', '--expires-in-days', '1.5'], '--expires-in-days must be a whole number (got "1.5")'],
    [['--name', 'x', '--expires-in-days', '-5'], '--expires-in-days must be positive (got -5)'],
    [['--name', 'x', '--offices'], '--offices needs a value <office,…>'],
  ])('refuses %o', async (flags, message) => {
    const r = await colony('keys', 'create', ...flags);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toEqual([
      `colony: ${message}`,
      'hint: run `colony keys create --help` for usage',
    ]);
  });
});

describe('what the commands print', () => {
  const me: Me = {
    id: 'acct_1',
    type: 'user',
    name: 'Ada',
    scopes: ['offices:read', 'keys:write'],
    offices: ['acme'],
    credential: 'oauth_access_token',
    clientId: 'colony-cli',
    account: {
      id: 'acct_1',
      email: 'ada@example.com',
      name: 'Ada',
      createdAt: '2026-11-23T00:00:00.000Z',
      memberships: [{ officeId: 'acme', role: 'owner' }],
    },
  };

  it('whoami: the person, the credential, its scopes and offices', () => {
    expect(describeMe(me)).toEqual([
      'Ada <ada@example.com> (acct_1)',
      'credential: oauth_access_token (colony-cli)',
      'scopes: offices:read keys:write',
      'offices: acme (owner)',
    ]);
    expect(
      describeMe({ ...me, account: null, offices: '*', credential: 'bootstrap_token', clientId: undefined }),
    ).toEqual(['Ada', 'credential: bootstrap_token', 'scopes: offices:read keys:write', 'offices: all']);
  });

  it('keys list: a hint, never a key', () => {
    const key = {
      id: 'key_a',
      name: 'ci',
      hint: 'col_AbCd…',
      scopes: ['offices:read'],
      offices: null,
      createdAt: '2026-11-23T00:00:00.000Z',
      lastUsedAt: null,
      expiresAt: '2027-01-01T00:00:00.000Z',
    };
    const [line] = renderTable([key], keyColumns, false);
    expect(line).toMatch(
      /^key_a {2}ci +col_AbCd… +offices:read +all-offices +expires 2027-01-01T00:00:00.000Z {2}last used never$/,
    );
  });
});

describe('OAuth failures in words', () => {
  it.each([
    ['access_denied', undefined, 'the login was denied in the browser'],
    ['expired_token', undefined, 'the code expired before it was approved; run `colony login` again'],
    ['invalid_scope', 'unknown scope x', 'the server refused the scopes asked for (unknown scope x)'],
    ['server_error', 'boom', 'server_error (boom)'],
  ])('%s', (code, description, message) => {
    expect(oauthErrorMessage(code, description)).toMatchObject({ code, message });
  });

  it('names an unreachable server by the network error, and a local timeout as expiry', () => {
    const refused = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    expect(describeOAuthFailure(refused, 'https://c.dev')).toMatchObject({
      code: 'unreachable',
      message: 'cannot reach https://c.dev (ECONNREFUSED)',
    });
    const timeout = new DOMException('timed out', 'TimeoutError');
    expect(describeOAuthFailure(timeout, 'https://c.dev').code).toBe('expired_token');
  });

  it('turns openid-client giving up at the end of the code’s lifetime into expired_token', async () => {
    const config = new oauth.Configuration(
      { issuer: 'https://c.dev', token_endpoint: 'https://c.dev/oauth/token' },
      'colony-cli',
    );
    const started = {
      device_code: 'd',
      user_code: 'BCDF-GHJK',
      verification_uri: 'https://c.dev/oauth/device',
      expires_in: 1,
    };
    const failure = await oauth
      .pollDeviceAuthorizationGrant(config, started, undefined, {
        signal: AbortSignal.abort(new DOMException('late', 'TimeoutError')),
      })
      .catch((err: unknown) => err);
    expect(describeOAuthFailure(failure, 'https://c.dev')).toMatchObject({
      code: 'expired_token',
      message:
        'the code expired before it was approved; run `colony login` again (no approval arrived in time)',
    });
  });
});
