// `colony keys create --name N [--scopes a,b] [--offices a,b] [--expires-in-days N] [--json]`:
// prints the new key once (stdout, so `$(colony keys create …)` captures it) with a warning.
import type { Command, ParsedArgs } from '../../args.ts';
import { flagValue } from '../../args.ts';
import { loginClientFrom } from '../../client-from-env.ts';
import type { CreateApiKeyInput } from '../../sdk/client.ts';

const list = (v: string) => v.split(/[\s,]+/).filter(Boolean);

/** Pure: the request body from the flags, or a usage problem in words. */
export function createKeyInput(flags: ParsedArgs['flags']): CreateApiKeyInput | string {
  const { name, scopes, offices } = flags;
  const days = flags['expires-in-days'];
  if (typeof name !== 'string' || !name.trim()) return '--name is required';
  if (scopes === true || offices === true || days === true) return 'a flag is missing its value';
  if (days !== undefined && !/^\d+$/.test(days)) return '--expires-in-days must be a whole number of days';
  return {
    name,
    ...(scopes ? { scopes: list(scopes) } : {}),
    ...(offices ? { offices: list(offices) } : {}),
    ...(days ? { expiresInDays: Number(days) } : {}),
  };
}

export const create: Command = {
  summary: 'Create an API key; it is printed once and never shown again',
  usage:
    'colony keys create --name <name> [--scopes offices:read,offices:write] [--offices <id,…>] [--expires-in-days <n>] [--endpoint <url>] [--json]',
  async run(args, io) {
    const input = createKeyInput(args.flags);
    if (typeof input === 'string') {
      io.err(`colony: ${input}\nusage: ${create.usage}`);
      return 64;
    }
    const endpoint = flagValue(args.flags.endpoint);
    const created = await loginClientFrom(io.env, endpoint ? { endpoint } : {}).createKey(input);
    io.err(
      `Created ${created.id} (${created.name}; scopes ${created.scopes.join(' ')}; ` +
        `offices ${created.offices?.join(' ') ?? 'all of yours'}; expires ${created.expiresAt ?? 'never'}).`,
    );
    io.err('Store the key now: it is not shown again. Use it as COLONY_API_KEY or a bearer token.');
    io.out(args.flags.json ? JSON.stringify(created, null, 2) : created.key);
    return 0;
  },
};
