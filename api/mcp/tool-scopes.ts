// Pure: which scope each memory tool needs, and which scopes an incoming JSON-RPC body calls for.

export const memoryToolScopes = {
  cortex_ask: 'memory:read',
  cortex_recall: 'memory:read',
  cortex_manifest: 'memory:read',
  cortex_status: 'memory:read',
  cortex_connectable_sources: 'memory:read',
  cortex_connect_link: 'memory:read',
  cortex_remember: 'memory:write',
  cortex_ingest: 'memory:write',
  cortex_ingest_conversation: 'memory:write',
  cortex_forget: 'memory:write',
} as const satisfies Record<string, 'memory:read' | 'memory:write'>;

export type MemoryToolName = keyof typeof memoryToolScopes;

export const publicToolNames = ['get_pricing', 'get_platform_status', 'search_docs', 'list_skills'] as const;

function scopeOfMessage(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const name = (params as { name?: unknown }).name;
  return typeof name === 'string' && Object.hasOwn(memoryToolScopes, name)
    ? memoryToolScopes[name as MemoryToolName]
    : undefined;
}

/**
 * The scopes a request body needs before it may reach the server: one per memory tool it calls,
 * looking inside a JSON-RPC batch too. Listing tools and calling public ones need none.
 */
export function scopesNeeded(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const scopes = messages.map(scopeOfMessage).filter((s): s is string => s !== undefined);
  return [...new Set(scopes)].sort();
}
