// oidc-provider's storage adapter over our database, so SQLite and PostgreSQL both hold its state.
import { createHash } from 'node:crypto';
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { inspectBody } from '../../shared/input-limits.ts';
import type { OAuthArtifactsRepo } from './oauth-artifacts-repo.ts';

// Grants and clients are looked up by id from other rows and pages; every other artifact id is a
// bearer secret (a token, a code, a session cookie), so only its SHA-256 is stored and a copy of the
// database yields nothing that can be replayed.
const KEPT_IN_CLEAR = new Set(['Grant', 'Client']);
// Device codes and provider sessions are also found by user code or uid, and oidc-provider needs
// their id back then, so their payload keeps it (device codes live ten minutes).
const ID_IN_PAYLOAD = new Set(['DeviceCode', 'Session']);

// Destroying one of these changes what a bearer access token verifies to (api/identity/credential-cache.ts).
const DECIDES_VERIFICATION = new Set(['AccessToken', 'Grant']);

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

export class StorageAdapter implements Adapter {
  private readonly model: string;
  private readonly repo: OAuthArtifactsRepo;
  private readonly now: () => number;
  private readonly onRevoke: () => Promise<void>;

  constructor(
    model: string,
    repo: OAuthArtifactsRepo,
    now: () => number,
    /** Told after a token or grant is revoked, so cached verifications are forgotten. */
    onRevoke: () => Promise<void> = async () => {},
  ) {
    this.model = model;
    this.repo = repo;
    this.now = now;
    this.onRevoke = onRevoke;
  }

  // oidc-provider reads its own request bodies, so the input guards never see them: U+0000 (which
  // PostgreSQL cannot store) is refused here instead, as the provider's own invalid_request, and an id
  // holding it is one nothing was ever stored under.
  private refuseNul(payload: AdapterPayload): void {
    const fault = inspectBody(payload);
    if (!fault) return;
    const detail = `${fault.pointer.slice(1) || 'a value'} ${fault.message}`;
    throw this.model === 'Client'
      ? new errors.InvalidClientMetadata(detail)
      : new errors.InvalidRequest(detail);
  }

  private key(id: string): string {
    return KEPT_IN_CLEAR.has(this.model) ? id : sha256(id);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    // The id travels in the payload as jti; it is put back from the caller's id on the way out.
    this.refuseNul(payload);
    const { jti: _jti, ...rest } = payload;
    // A registered client's `scope` is not kept as a ceiling: oidc-provider would refuse any scope
    // beyond it, and MCP clients register with the scope of their first challenge, then step up.
    // The person still approves every scope on the consent page.
    if (this.model === 'Client') delete rest.scope;
    await this.repo.upsert({
      model: this.model,
      id: this.key(id),
      payload: (ID_IN_PAYLOAD.has(this.model) ? payload : rest) as Record<string, unknown>,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ? sha256(String(payload.userCode)) : null,
      uid: payload.uid ?? null,
      accountId: payload.accountId ?? null,
      clientId: payload.clientId ?? (this.model === 'Client' ? (payload.client_id ?? null) : null),
      expiresAt: typeof expiresIn === 'number' ? this.now() + expiresIn * 1000 : null,
    });
  }

  private restore(
    id: string | undefined,
    found: { payload: Record<string, unknown>; consumedAt: number | null },
  ) {
    const payload = { ...found.payload, ...(id ? { jti: id } : {}) } as AdapterPayload;
    if (found.consumedAt !== null) payload.consumed = Math.floor(found.consumedAt / 1000);
    return payload;
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (id.includes('\0')) return undefined;
    const found = await this.repo.find(this.model, this.key(id), this.now());
    return found ? this.restore(id, found) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const found = await this.repo.findBy(this.model, 'user_code', sha256(userCode), this.now());
    return found ? this.restore(undefined, found) : undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    if (uid.includes('\0')) return undefined;
    const found = await this.repo.findBy(this.model, 'uid', uid, this.now());
    return found ? this.restore(undefined, found) : undefined;
  }

  /** Single-use artifacts (codes, rotated refresh tokens): a second use loses, even in a race. */
  async consume(id: string): Promise<void> {
    if (!(await this.repo.consume(this.model, this.key(id), this.now()))) {
      throw new errors.InvalidGrant(`${this.model} was already used`);
    }
  }

  async destroy(id: string): Promise<void> {
    if (id.includes('\0')) return;
    await this.repo.destroy(this.model, this.key(id));
    if (DECIDES_VERIFICATION.has(this.model)) await this.onRevoke();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.repo.revokeByGrantId(grantId);
    await this.onRevoke();
  }
}
