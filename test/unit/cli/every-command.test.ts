// Every command of the table, four ways: --help, --json against a stand-in API, a bad flag, and no
// credentials. A command added to the table without a row here fails the first test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childrenOf, commands, groups } from '../../../cli/command-table.ts';
import { runCli } from '../../../cli/run.ts';
import { type CannedApi, startCannedApi } from './canned-api.ts';

let api: CannedApi;
let empty: string;
let loggedIn: string;
let envFile: string;

beforeAll(async () => {
  api = await startCannedApi();
  empty = mkdtempSync(join(tmpdir(), 'colony-cli-none-'));
  loggedIn = mkdtempSync(join(tmpdir(), 'colony-cli-login-'));
  envFile = join(loggedIn, 'slack.env');
  writeFileSync(envFile, '# the bot token\nSLACK_TOKEN="xoxb-never-printed"\n');
});
/** A stored login for the stand-in (logout removes it, so each --json run writes it again). */
function writeLogin() {
  const login = {
    accessToken: 'at_canned',
    refreshToken: null,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    scope: 'keys:write',
    issuer: api.url,
    resource: api.url,
    clientId: 'colony-cli',
  };
  writeFileSync(
    join(loggedIn, 'credentials.json'),
    JSON.stringify({ version: 1, defaultEndpoint: api.url, logins: { [api.url]: login } }),
  );
}

afterAll(async () => {
  await api?.close();
  rmSync(empty, { recursive: true, force: true });
  rmSync(loggedIn, { recursive: true, force: true });
});

async function colony(argv: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env,
    cwd: process.cwd(),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type JsonOutcome = 'empty list' | 'list' | 'object' | { code: number };
interface Row {
  /** The arguments and required flags that make a valid call. */
  argv: () => string[];
  json: JsonOutcome;
  /** The exit code with no credential at all (3 for every command that needs one). */
  noCredentials: number;
}

const office = ['--office', 'acme'];
const rows: Record<string, Row> = {
  // The device flow needs a real authorization server (test/integration/cli-auth.test.ts): the
  // stand-in is not one, and the login says so.
  login: { argv: () => [], json: { code: 1 }, noCredentials: 1 },
  logout: { argv: () => [], json: 'object', noCredentials: 1 },
  whoami: { argv: () => [], json: 'object', noCredentials: 3 },
  usage: { argv: () => [], json: 'object', noCredentials: 3 },
  version: { argv: () => [], json: 'object', noCredentials: 0 },
  completion: { argv: () => ['bash'], json: 'object', noCredentials: 0 },
  'keys list': { argv: () => [], json: 'empty list', noCredentials: 3 },
  'keys create': { argv: () => ['--name', 'x'], json: 'object', noCredentials: 3 },
  'keys revoke': { argv: () => ['key_b'], json: 'object', noCredentials: 3 },
  'integrations list': { argv: () => [], json: 'empty list', noCredentials: 0 },
  'integrations show': { argv: () => ['slack'], json: 'object', noCredentials: 0 },
  'integrations validate': { argv: () => ['integrations'], json: 'object', noCredentials: 0 },
  'integrations status': { argv: () => office, json: 'list', noCredentials: 3 },
  'integrations connect': { argv: () => ['slack', ...office], json: 'object', noCredentials: 3 },
  'integrations enable': {
    argv: () => ['slack', ...office, '--agent', 'support', '--wait'],
    json: 'object',
    noCredentials: 3,
  },
  'integrations disable': {
    argv: () => ['slack', ...office, '--agent', 'support'],
    json: 'object',
    noCredentials: 3,
  },
  'integrations secret set': {
    argv: () => ['slack', ...office, '--from-env-file', envFile],
    json: 'object',
    noCredentials: 3,
  },
  'integrations secret delete': { argv: () => ['slack', ...office], json: 'object', noCredentials: 3 },
  'offices list': { argv: () => [], json: 'list', noCredentials: 3 },
  'offices create': { argv: () => ['acme'], json: 'object', noCredentials: 3 },
  'offices delete': { argv: () => ['acme'], json: 'object', noCredentials: 3 },
  'offices members list': { argv: () => office, json: 'empty list', noCredentials: 3 },
  'offices members add': {
    argv: () => [...office, '--email', 'ada@example.com'],
    json: 'object',
    noCredentials: 3,
  },
  'offices members remove': { argv: () => ['acct_1', ...office], json: 'object', noCredentials: 3 },
  'offices tasks list': { argv: () => office, json: 'empty list', noCredentials: 3 },
  'offices tasks create': {
    argv: () => [...office, '--title', 'Report', '--prompt', 'Summarise'],
    json: 'object',
    noCredentials: 3,
  },
  'offices tasks show': {
    argv: () => ['task_0123456789abcdef0123', ...office],
    json: 'object',
    noCredentials: 3,
  },
  'offices tasks update': {
    argv: () => ['task_0123456789abcdef0123', ...office, '--status', 'done'],
    json: 'object',
    noCredentials: 3,
  },
  'backups list': { argv: () => [], json: 'empty list', noCredentials: 3 },
  'backups show': { argv: () => ['snap_0123456789abcdef01234567'], json: 'object', noCredentials: 3 },
  'backups create': { argv: () => [...office, '--wait'], json: 'object', noCredentials: 3 },
  'backups restore': {
    argv: () => ['snap_0123456789abcdef01234567', '--wait'],
    json: 'object',
    noCredentials: 3,
  },
  'backups schedule show': { argv: () => office, json: 'object', noCredentials: 3 },
  'backups schedule set': { argv: () => [...office, '--hour', '0'], json: 'object', noCredentials: 3 },
  'backups delete': { argv: () => ['snap_0123456789abcdef01234567'], json: 'object', noCredentials: 3 },
};

const table = commands.map((c) => [c.path.join(' '), c] as const);

describe('the command table', () => {
  it('has a row here for every command', () => {
    expect(Object.keys(rows).sort()).toEqual(table.map(([name]) => name).sort());
  });
});

describe.each([[], ...groups.map((g) => g.path)].map((p) => [p.join(' '), p] as const))(
  'colony %s --help (a group)',
  (_, path) => {
    it('lists its commands and gives examples', async () => {
      const r = await colony([...path, '--help'], {});
      expect(r.code).toBe(0);
      for (const child of childrenOf(path))
        expect(r.out).toMatch(new RegExp(`\\n {2}${child.name} +${escapeRegExp(child.summary)}\\n`));
      expect(r.out).toMatch(
        new RegExp(`\\nExamples\\n {2}\\$ colony ${path.map((w) => `${w} `).join('')}\\S`),
      );
    });
  },
);

describe.each(table)('colony %s', (name, spec) => {
  const row = rows[name] as Row;
  const argv = () => [...spec.path, ...row.argv()];

  it('--help prints its usage, every flag with its description, and an example', async () => {
    const r = await colony([...spec.path, '--help'], {});
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out.split('\n')[0]).toBe(spec.summary);
    expect(r.out).toContain(`colony ${name}`);
    for (const [flag, f] of Object.entries(spec.flags))
      expect(r.out).toMatch(new RegExp(`--${flag}.* {2}${escapeRegExp(f.description)}`));
    expect(r.out).toContain(`Examples\n  $ ${spec.examples[0]}`);
    expect((await colony([...spec.path, '-h'], {})).out).toBe(r.out);
  });

  it('--json prints JSON on stdout', async () => {
    writeLogin();
    const r = await colony([...argv(), '--json', '--endpoint', api.url], {
      COLONY_CONFIG_DIR: loggedIn,
      COLONY_API_KEY: 'col_canned',
    });
    if (typeof row.json === 'object') {
      expect(r.code).toBe(row.json.code);
      expect(r.out).toBe('');
      return;
    }
    expect(r, r.err).toMatchObject({ code: 0 });
    const parsed = JSON.parse(r.out);
    if (row.json === 'empty list') expect(r.out).toBe('[]');
    else if (row.json === 'list') expect(Array.isArray(parsed) && parsed.length > 0).toBe(true);
    else expect(parsed).toBeTypeOf('object');
    expect(r.out + r.err).not.toContain('xoxb-never-printed');
  });

  it('refuses an unknown flag with exit 2, naming it', async () => {
    const r = await colony([...argv(), '--no-such-flag'], {});
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `colony: unknown flag --no-such-flag for "colony ${name}"\nhint: run \`colony ${name} --help\` for usage`,
    );
  });

  it(`exits ${row.noCredentials} with no credentials`, async () => {
    const before = api.requests.length;
    const r = await colony([...argv(), '--endpoint', api.url], { COLONY_CONFIG_DIR: empty });
    expect(r.code, r.err).toBe(row.noCredentials);
    if (row.noCredentials === 3) {
      expect(r.out).toBe('');
      expect(r.err).toContain(`not logged in to ${api.url}; run \`colony login --endpoint ${api.url}\``);
      // Refused before any request: nothing reaches the server without a credential.
      expect(api.requests.length).toBe(before);
    }
  });
});
