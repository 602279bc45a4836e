// What each scope lets a credential do, in words a person approving it understands.
import { allScopes, type Scope } from '../shared/identity.ts';

export const scopeDescriptions: Record<Scope | 'offline_access', string> = {
  openid: 'Confirm your Colony account id',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Stay connected while you are away (refresh tokens)',
  'memory:read': 'Read your memory: recall, ask, see what is stored',
  'memory:write': 'Add to your memory and forget from it',
  'backups:read': 'List and download your backups',
  'backups:write': 'Create backups',
  'backups:admin': 'Restore and delete backups',
  'offices:read': 'See your offices, their members and integrations',
  'offices:write': 'Configure integrations and members in your offices',
  'keys:write': 'Create, list and revoke your API keys',
};

/** The OpenID Connect scopes; everything else belongs to a resource server. */
export const oidcScopes = ['openid', 'profile', 'email', 'offline_access'] as const;

/** scopes_supported: the authoritative list (spec 5.6). */
export const scopesSupported: readonly string[] = [...allScopes, 'offline_access'];

/** Scopes of the resource servers: everything but the OpenID Connect ones, which describe a sign-in. */
export const resourceScopes = allScopes.filter((s) => !(oidcScopes as readonly string[]).includes(s));

/** An API key may carry any resource scope but `keys:write`: keys cannot mint keys. */
export const apiKeyScopes = resourceScopes.filter((s) => s !== 'keys:write');

/** What a new API key gets when its creator names no scopes: operating their offices. */
export const defaultApiKeyScopes = ['offices:read', 'offices:write'];

export const memoryScopes = ['memory:read', 'memory:write'] as const;
