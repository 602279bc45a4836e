// Shows a new API key once, after a redirect: the key is sealed in a short-lived record that the
// first page view takes; the opening key travels only in the creator's browser cookie.
import { randomId } from '../../shared/random-id.ts';
import type { KeyRevealsRepo } from './key-reveals-repo.ts';
import { openSecret, sealSecret } from './sealed-secret.ts';

/** Long enough for a redirect and a slow page load, short enough that a forgotten one soon goes. */
export const KEY_REVEAL_TTL_MS = 5 * 60_000;

export interface RevealedKey {
  keyId: string;
  name: string;
  hint: string;
  token: string;
}

const contextOf = (accountId: string, revealId: string) => `${accountId}:${revealId}`;

export class KeyReveals {
  private readonly repo: KeyRevealsRepo;
  private readonly now: () => number;

  constructor(repo: KeyRevealsRepo, now: () => number) {
    this.repo = repo;
    this.now = now;
  }

  /** Seals the key for one showing; answers the ticket (reveal id and opening key) for the cookie. */
  async stash(accountId: string, key: RevealedKey): Promise<string> {
    const id = randomId('reveal');
    const { sealed, key: opening } = sealSecret(JSON.stringify(key), contextOf(accountId, id));
    const at = this.now();
    await this.repo.put({ id, accountId, sealed, expiresAt: at + KEY_REVEAL_TTL_MS }, at);
    return `${id}.${opening}`;
  }

  /** The key behind a ticket the first time it is presented by its account; undefined ever after. */
  async take(accountId: string, ticket: string | undefined): Promise<RevealedKey | undefined> {
    const [id, opening] = (ticket ?? '').split('.');
    if (!id || !opening) return undefined;
    const sealed = await this.repo.take(id, accountId, this.now());
    if (!sealed) return undefined;
    const plain = openSecret(sealed, opening, contextOf(accountId, id));
    return plain === undefined ? undefined : (JSON.parse(plain) as RevealedKey);
  }
}
