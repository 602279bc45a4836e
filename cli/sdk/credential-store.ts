// The CLI's stored logins: one credentials.json per user, an entry per endpoint, private and
// replaced atomically so a crash or a parallel command never leaves half a file.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { CredentialStoreError, endpointKey } from './endpoint-key.ts';

export { CredentialStoreError, endpointKey } from './endpoint-key.ts';

export const storedLoginSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).nullable(),
  /** When the access token stops working, ISO 8601; null when the server did not say. */
  expiresAt: z.iso.datetime().nullable(),
  scope: z.string(),
  /** The authorization server that issued the tokens, and the resource they are for (RFC 8707). */
  issuer: z.url(),
  resource: z.url(),
  clientId: z.string().min(1),
});
export type StoredLogin = z.infer<typeof storedLoginSchema>;

const fileSchema = z.object({
  version: z.literal(1),
  /** The endpoint of the latest login, used when neither --endpoint nor COLONY_ENDPOINT is given. */
  defaultEndpoint: z.string().nullable(),
  logins: z.record(z.string(), storedLoginSchema),
});
export type CredentialsFile = z.infer<typeof fileSchema>;

const emptyFile = (): CredentialsFile => ({ version: 1, defaultEndpoint: null, logins: {} });

/** $COLONY_CONFIG_DIR, else $XDG_CONFIG_HOME/colony, else ~/.config/colony. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.COLONY_CONFIG_DIR) return env.COLONY_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'colony');
  return join(env.HOME || homedir(), '.config', 'colony');
}

export class CredentialStore {
  readonly dir: string;
  readonly file: string;

  constructor(dir: string) {
    this.dir = dir;
    this.file = join(dir, 'credentials.json');
  }

  static fromEnv(env: NodeJS.ProcessEnv): CredentialStore {
    return new CredentialStore(configDir(env));
  }

  read(): CredentialsFile {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyFile();
      throw new CredentialStoreError(`cannot read ${this.file}: ${(err as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw this.corrupt('it is not valid JSON');
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw this.corrupt(`${issue?.path.join('.') || 'the file'}: ${issue?.message}`);
    }
    return parsed.data;
  }

  private corrupt(why: string): CredentialStoreError {
    // Never quote the content: it holds tokens.
    return new CredentialStoreError(
      `${this.file} is damaged (${why}); delete it and run \`colony login\` again`,
    );
  }

  get(endpoint: string): StoredLogin | undefined {
    return this.read().logins[endpointKey(endpoint)];
  }

  defaultEndpoint(): string | undefined {
    return this.read().defaultEndpoint ?? undefined;
  }

  /** Saves a login (replacing the endpoint's previous one) and makes it the default endpoint. */
  save(endpoint: string, login: StoredLogin, opts: { makeDefault?: boolean } = {}): void {
    const key = endpointKey(endpoint);
    const current = this.read();
    current.logins[key] = storedLoginSchema.parse(login);
    if (opts.makeDefault ?? true) current.defaultEndpoint = key;
    this.write(current);
  }

  /** Removes an endpoint's login; answers whether there was one. */
  remove(endpoint: string): boolean {
    const key = endpointKey(endpoint);
    const current = this.read();
    if (!current.logins[key]) return false;
    delete current.logins[key];
    if (current.defaultEndpoint === key) current.defaultEndpoint = Object.keys(current.logins)[0] ?? null;
    this.write(current);
    return true;
  }

  private ensureDir(): void {
    const created = mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    // mkdir applies the umask; a directory we created is ours to tighten, one the user chose is not.
    if (created !== undefined) chmodSync(this.dir, 0o700);
  }

  /** Temp file in the same directory (0600 from the start), fsync, rename over the old file. */
  private write(content: CredentialsFile): void {
    this.ensureDir();
    const temp = join(this.dir, `.credentials.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(content, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      renameSync(temp, this.file);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }

  /**
   * Runs `fn` holding an exclusive lock on the store, so two commands never spend one rotating
   * refresh token twice (the server would revoke the whole grant). A lock older than `staleMs`
   * belongs to a process that died and is taken over.
   */
  async withLock<T>(fn: () => Promise<T>, opts: { timeoutMs?: number; staleMs?: number } = {}): Promise<T> {
    this.ensureDir();
    const lock = join(this.dir, 'credentials.lock');
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    while (!tryLock(lock, opts.staleMs ?? 60_000)) {
      if (Date.now() > deadline)
        throw new CredentialStoreError(`${lock} is held by another colony command; try again`);
      await new Promise((r) => setTimeout(r, 50));
    }
    try {
      return await fn();
    } finally {
      rmSync(lock, { force: true });
    }
  }
}

/** Creates the lock file exclusively; a stale one (its holder died) is removed for the next try. */
function tryLock(lock: string, staleMs: number): boolean {
  try {
    closeSync(openSync(lock, 'wx', 0o600));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (lockAge(lock) > staleMs) rmSync(lock, { force: true });
    return false;
  }
}

function lockAge(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
