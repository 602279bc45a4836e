// Sign-up, password sign-in and browser sessions over the accounts repository; knows nothing of HTTP.
import { createHash, randomBytes } from 'node:crypto';
import { type Account, newAccountId, normalizeEmail, toAccount } from './account.ts';
import type { AccountsRepo } from './accounts-repo.ts';
import { burnVerification, hashPassword, needsRehash, verifyPassword } from './password-hash.ts';

/** A browser session lives two weeks from its last renewal. */
export const SESSION_TTL_MS = 14 * 24 * 3600 * 1000;
/** Renewed at most once a day, so an active person never has a write on every page view. */
const RENEW_AFTER_MS = 24 * 3600 * 1000;

export const hashSessionToken = (token: string) => createHash('sha256').update(token).digest('hex');

export type SignUpResult = { ok: true; account: Account } | { ok: false; reason: 'email_taken' };

export class AccountService {
  private readonly repo: AccountsRepo;
  private readonly now: () => number;

  constructor(repo: AccountsRepo, now: () => number) {
    this.repo = repo;
    this.now = now;
  }

  async signUp(input: { email: string; name: string; password: string }): Promise<SignUpResult> {
    const email = normalizeEmail(input.email);
    // Checked first so a taken email costs no hash; the insert still decides a race.
    if (await this.repo.byEmail(email)) return { ok: false, reason: 'email_taken' };
    const at = this.now();
    const record = {
      id: newAccountId(),
      email,
      name: input.name,
      passwordHash: await hashPassword(input.password),
      createdAt: at,
      updatedAt: at,
    };
    if (!(await this.repo.create(record))) return { ok: false, reason: 'email_taken' };
    return { ok: true, account: toAccount(record) };
  }

  /** The account for this email and password, or null; unknown emails take as long as wrong passwords. */
  async verifyCredentials(email: string, password: string): Promise<Account | null> {
    const record = await this.repo.byEmail(normalizeEmail(email));
    if (!record) {
      await burnVerification(password);
      return null;
    }
    if (!(await verifyPassword(password, record.passwordHash))) return null;
    if (needsRehash(record.passwordHash)) {
      await this.repo.updatePasswordHash(record.id, await hashPassword(password), this.now());
    }
    return toAccount(record);
  }

  async get(id: string): Promise<Account | undefined> {
    const record = await this.repo.get(id);
    return record ? toAccount(record) : undefined;
  }

  async byEmail(email: string): Promise<Account | undefined> {
    const record = await this.repo.byEmail(normalizeEmail(email));
    return record ? toAccount(record) : undefined;
  }

  /** Opens a session; the token goes to the browser, only its hash to the database. */
  async startSession(accountId: string): Promise<{ token: string; expiresAt: number }> {
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const expiresAt = at + SESSION_TTL_MS;
    await this.repo.createSession({
      id: hashSessionToken(token),
      accountId,
      createdAt: at,
      expiresAt,
      lastSeenAt: at,
    });
    return { token, expiresAt };
  }

  /** The account of a live session, sliding its expiry forward when it was last renewed a day ago. */
  async resolveSession(token: string): Promise<{ account: Account; renewedUntil?: number } | null> {
    const id = hashSessionToken(token);
    const at = this.now();
    const found = await this.repo.sessionWithAccount(id, at);
    if (!found) return null;
    const account = toAccount(found.account);
    if (at - found.session.lastSeenAt < RENEW_AFTER_MS) return { account };
    const renewedUntil = at + SESSION_TTL_MS;
    await this.repo.extendSession(id, renewedUntil, at);
    return { account, renewedUntil };
  }

  async endSession(token: string): Promise<void> {
    await this.repo.deleteSession(hashSessionToken(token));
  }
}
