// A database outage inside a tool call is not the tool's answer: the SDK would turn the error into a
// tool result (HTTP 200), so the call marks its request instead, and /mcp answers 503 with
// Retry-After like every other surface. The mark rides in the call's own AuthInfo.
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import { DatabaseUnavailableError } from '../storage/sql-driver.ts';

export interface Outage {
  hit: boolean;
}

/** AuthInfo for a call without a credential: it carries only the request's outage mark. */
export const anonymousAuthInfo = (outage: Outage): AuthInfo => ({
  token: '',
  clientId: 'anonymous',
  scopes: [],
  extra: { outage },
});

/** Runs a tool's work; a database outage marks the call's request before the SDK sees the error. */
export async function signalOutage<T>(ctx: ServerContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const outage = ctx.http?.authInfo?.extra?.outage as Outage | undefined;
    if (err instanceof DatabaseUnavailableError && outage) outage.hit = true;
    throw err;
  }
}

/** The JSON-RPC answer to a call the database could not serve: a server error, retried later. */
export function outageAnswer(body: unknown) {
  const id = (body as { id?: unknown } | null)?.id;
  return {
    jsonrpc: '2.0' as const,
    id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code: -32603, message: 'The database is not reachable; retry in a few seconds.' },
  };
}
