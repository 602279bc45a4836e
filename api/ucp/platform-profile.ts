// Fetches, validates and caches the agent (platform) profiles UCP-Agent points at: https only, no
// redirects, short timeouts, a size cap, no private addresses, and a bounded cache with a 60 s floor.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { UcpError } from './errors.ts';

const version = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** What Colony reads from a platform profile; anything else in it is the agent's business. */
export const platformProfileSchema = z.looseObject({
  ucp: z.looseObject({
    version,
    capabilities: z.record(z.string(), z.array(z.looseObject({ version: version.optional() }))).optional(),
  }),
});
export type PlatformProfile = z.infer<typeof platformProfileSchema>;

const MAX_BYTES = 256 * 1024;
const TIMEOUT_MS = 3000;
const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 60 * 60_000;
const CACHE_ENTRIES = 500;

function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 6) {
    const a = address.toLowerCase();
    if (a.startsWith('::ffff:')) return isPrivateAddress(a.slice(7));
    return a === '::1' || a === '::' || a.startsWith('fc') || a.startsWith('fd') || a.startsWith('fe80');
  }
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 10 ||
    a === 127 ||
    a === 0 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

// Checked at connect time, so a name that resolves to an internal address is refused however it got there.
function publicOnlyLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    if (list.some((a) => isPrivateAddress(a.address))) {
      return callback(
        Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }),
        [],
      );
    }
    const opts = options as { all?: boolean };
    if (opts.all) return callback(null, list);
    const first = list[0];
    return first
      ? callback(null, first.address, first.family)
      : callback(new Error(`${hostname} has no address`), []);
  });
}

function ttlFrom(cacheControl: string | undefined): number {
  const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '')?.[1];
  const ms = maxAge === undefined ? MIN_TTL_MS : Number(maxAge) * 1000;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ms));
}

export class PlatformProfiles {
  private readonly cache = new Map<string, { profile: PlatformProfile; until: number }>();
  /** Fetches under way, so concurrent requests for one profile share one (dropped once settled). */
  private readonly inFlight = new Map<string, Promise<PlatformProfile>>();
  private readonly dispatcher: Agent;
  private readonly now: () => number;
  private readonly allowPrivateAddresses: boolean;

  constructor(opts: { allowPrivateAddresses: boolean; now?: () => number }) {
    this.now = opts.now ?? Date.now;
    this.allowPrivateAddresses = opts.allowPrivateAddresses;
    this.dispatcher = new Agent({
      connect: { timeout: TIMEOUT_MS, ...(opts.allowPrivateAddresses ? {} : { lookup: publicOnlyLookup }) },
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  }

  async get(url: URL): Promise<PlatformProfile> {
    const key = url.href;
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) {
      // Refresh the entry's place: the cache drops the least recently used first.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit.profile;
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const fetching = this.fetchIntoCache(url).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  /** Only successes are cached: the next request after a failure fetches again. */
  private async fetchIntoCache(url: URL): Promise<PlatformProfile> {
    const { profile, ttlMs } = await this.fetch(url);
    this.cache.set(url.href, { profile, until: this.now() + ttlMs });
    while (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    return profile;
  }

  private async fetch(url: URL): Promise<{ profile: PlatformProfile; ttlMs: number }> {
    // The lookup guard never sees an address literal, so literals are checked here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivateAddresses && isIP(literal) && isPrivateAddress(literal)) {
      throw new UcpError('profile_unreachable', `Agent profile ${url.href} is on a private address.`);
    }
    let text: string;
    let cacheControl: string | undefined;
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.dispatcher,
        headers: { accept: 'application/json' },
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump();
        throw new UcpError(
          'profile_unreachable',
          `Agent profile ${url.href} answered HTTP ${res.statusCode}.`,
        );
      }
      const cc = res.headers['cache-control'];
      cacheControl = Array.isArray(cc) ? cc.join(',') : cc;
      text = await readCapped(res.body);
    } catch (err) {
      if (err instanceof UcpError) throw err;
      throw new UcpError(
        'profile_unreachable',
        `Agent profile ${url.href} could not be fetched: ${(err as Error).message}`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new UcpError('profile_malformed', `Agent profile ${url.href} is not JSON.`);
    }
    const parsed = platformProfileSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UcpError(
        'profile_malformed',
        `Agent profile ${url.href} is not a UCP profile: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      );
    }
    return { profile: parsed.data, ttlMs: ttlFrom(cacheControl) };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BYTES)
      throw new UcpError('profile_malformed', `Agent profile is larger than ${MAX_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
