// `colony version` (and `colony --version`): the CLI's version and the server's, from its agent card;
// a server that does not answer is reported, not fatal.
import { readFileSync } from 'node:fs';
import { endpointFor } from '../client-from-env.ts';
import { printRecord } from '../output.ts';
import type { Handler } from '../spec.ts';

export const cliVersion = (): string =>
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;

/** The server's version from /.well-known/agent-card.json, or why it could not be read. */
export async function serverVersion(endpoint: string): Promise<{ version: string | null; error?: string }> {
  try {
    const res = await fetch(`${endpoint}/.well-known/agent-card.json`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(3000),
    });
    const body = (await res.json().catch(() => null)) as { version?: unknown } | null;
    if (res.ok && typeof body?.version === 'string') return { version: body.version };
    return { version: null, error: `${res.status} without a version` };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { version: null, error: cause ?? (err as Error).message };
  }
}

export const run: Handler = async (ctx) => {
  const endpoint = await endpointFor(ctx.io.env, ctx.endpoint);
  const server = await serverVersion(endpoint);
  const cli = cliVersion();
  printRecord(ctx, { cli, server: server.version, endpoint }, () => [
    `colony ${cli}`,
    `server ${server.version ?? `unknown (${endpoint}: ${server.error})`}${server.version ? ` (${endpoint})` : ''}`,
  ]);
  return 0;
};
