// The CLI's credentials.json: private modes, atomic replacement, one login per endpoint, and a clear
// error (never quoting the tokens) for a damaged file.
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CredentialStore,
  CredentialStoreError,
  configDir,
  endpointKey,
  type StoredLogin,
} from '../../../cli/sdk/credential-store.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'colony-store-'));
  dirs.push(d);
  return d;
}

const login = (over: Partial<StoredLogin> = {}): StoredLogin => ({
  accessToken: 'access-secret',
  refreshToken: 'refresh-secret',
  expiresAt: '2026-11-23T12:00:00.000Z',
  scope: 'offices:read keys:write',
  issuer: 'https://colony.example.com',
  resource: 'https://colony.example.com',
  clientId: 'colony-cli',
  ...over,
});

describe('configDir', () => {
  it.each([
    [{ COLONY_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x', HOME: '/h' }, '/c'],
    [{ XDG_CONFIG_HOME: '/x', HOME: '/h' }, '/x/colony'],
    [{ HOME: '/h' }, '/h/.config/colony'],
  ])('resolves %o to %s', (env, expected) => {
    expect(configDir(env)).toBe(expected);
  });
});

describe('endpointKey', () => {
  it.each([
    ['https://Colony.Example.com/', 'https://colony.example.com'],
    ['https://colony.example.com:443', 'https://colony.example.com'],
    ['http://127.0.0.1:8080//', 'http://127.0.0.1:8080'],
    ['https://example.com/colony/', 'https://example.com/colony'],
  ])('spells %s as %s', (given, expected) => {
    expect(endpointKey(given)).toBe(expected);
  });

  it('refuses what is not an http(s) URL', () => {
    expect(() => endpointKey('colony.example.com')).toThrow(/is not a URL/);
    expect(() => endpointKey('ftp://colony.example.com')).toThrow(/only http and https/);
  });
});

describe('CredentialStore', () => {
  it('reads an absent file as no logins', () => {
    const store = new CredentialStore(join(tempDir(), 'colony'));
    expect(store.read()).toEqual({ version: 1, defaultEndpoint: null, logins: {} });
    expect(store.get('https://colony.example.com')).toBeUndefined();
  });

  it('creates its directory 0700 and the file 0600, whatever the umask', () => {
    const dir = join(tempDir(), 'nested', 'colony');
    const previous = process.umask(0o000);
    try {
      new CredentialStore(dir).save('https://colony.example.com', login());
    } finally {
      process.umask(previous);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('leaves the modes of a directory the user made alone', () => {
    const dir = tempDir();
    chmodSync(dir, 0o750);
    new CredentialStore(dir).save('https://colony.example.com', login());
    expect(statSync(dir).mode & 0o777).toBe(0o750);
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it('replaces the file by rename, leaving no temporary file behind', () => {
    const dir = tempDir();
    const store = new CredentialStore(dir);
    store.save('https://a.example.com', login());
    const firstInode = statSync(store.file).ino;
    store.save('https://b.example.com', login({ accessToken: 'other' }));
    expect(statSync(store.file).ino).not.toBe(firstInode);
    expect(readdirSync(dir)).toEqual(['credentials.json']);
  });

  it('writes nothing when the login is invalid', () => {
    const store = new CredentialStore(tempDir());
    store.save('https://a.example.com', login());
    const before = readFileSync(store.file, 'utf8');
    expect(() => store.save('https://b.example.com', login({ accessToken: '' }))).toThrow();
    expect(readFileSync(store.file, 'utf8')).toBe(before);
  });

  it('keeps several endpoints side by side, the latest login as the default', () => {
    const store = new CredentialStore(tempDir());
    store.save('https://a.example.com/', login({ accessToken: 'a' }));
    store.save('https://b.example.com', login({ accessToken: 'b' }));
    expect(store.get('https://A.example.com')?.accessToken).toBe('a');
    expect(store.get('https://b.example.com/')?.accessToken).toBe('b');
    expect(store.defaultEndpoint()).toBe('https://b.example.com');
    store.save('https://a.example.com', login({ accessToken: 'a2' }), { makeDefault: false });
    expect(store.defaultEndpoint()).toBe('https://b.example.com');
    expect(store.get('https://a.example.com')?.accessToken).toBe('a2');
  });

  it('removes one endpoint, moving the default to one that is left', () => {
    const store = new CredentialStore(tempDir());
    store.save('https://a.example.com', login());
    store.save('https://b.example.com', login());
    expect(store.remove('https://b.example.com')).toBe(true);
    expect(store.remove('https://b.example.com')).toBe(false);
    expect(store.read()).toMatchObject({ defaultEndpoint: 'https://a.example.com' });
    expect(Object.keys(store.read().logins)).toEqual(['https://a.example.com']);
    store.remove('https://a.example.com');
    expect(store.read()).toEqual({ version: 1, defaultEndpoint: null, logins: {} });
  });

  it('names a damaged file and what to do, without quoting it', () => {
    const dir = tempDir();
    const store = new CredentialStore(dir);
    writeFileSync(store.file, '{"version":1,"logins":{"x":{"accessToken":"access-secret"');
    const err = (() => {
      try {
        store.read();
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(CredentialStoreError);
    expect(err?.message).toBe(
      `${store.file} is damaged (it is not valid JSON); delete it and run \`colony login\` again`,
    );
    expect(err?.message).not.toContain('access-secret');
  });

  it('names the field of a file that parses but does not fit', () => {
    const store = new CredentialStore(tempDir());
    writeFileSync(
      store.file,
      JSON.stringify({ version: 1, defaultEndpoint: null, logins: { x: { ...login(), expiresAt: 'soon' } } }),
    );
    expect(() => store.get('https://x.example.com')).toThrow(/damaged \(logins\.x\.expiresAt: /);
    writeFileSync(store.file, JSON.stringify({ version: 2 }));
    expect(() => store.read()).toThrow(/damaged \(version: /);
  });

  it('runs locked sections one at a time', async () => {
    const store = new CredentialStore(tempDir());
    const order: string[] = [];
    const section = (name: string) =>
      store.withLock(async () => {
        order.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 20));
        order.push(`${name} out`);
      });
    await Promise.all([section('a'), section('b')]);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
    expect(readdirSync(store.dir)).toEqual([]);
  });

  it('takes over a lock left by a process that died, and times out on a live one', async () => {
    const dir = tempDir();
    const store = new CredentialStore(dir);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'credentials.lock'), '');
    await expect(store.withLock(async () => 'late', { timeoutMs: 100 })).rejects.toThrow(
      /held by another colony command/,
    );
    await expect(store.withLock(async () => 'taken', { staleMs: 0 })).resolves.toBe('taken');
  });
});
