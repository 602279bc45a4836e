// `colony keys list [--json]`: your active API keys, with a hint but never the key.
import type { Command } from '../../args.ts';
import { flagValue } from '../../args.ts';
import { loginClientFrom } from '../../client-from-env.ts';
import type { ApiKey } from '../../sdk/client.ts';

/** Pure: one line per key: id, name, hint, scopes, offices, expiry, last use. */
export function keyLine(k: ApiKey): string {
  const offices = k.offices ? k.offices.join(',') : 'all-offices';
  return [
    k.id,
    k.name.padEnd(20),
    k.hint.padEnd(14),
    k.scopes.join(',').padEnd(28),
    offices.padEnd(16),
    `expires ${k.expiresAt ?? 'never'}`,
    `last used ${k.lastUsedAt ?? 'never'}`,
  ].join('  ');
}

export const list: Command = {
  summary: 'List your API keys (never the keys themselves)',
  usage: 'colony keys list [--endpoint <url>] [--json]',
  async run(args, io) {
    const endpoint = flagValue(args.flags.endpoint);
    const { keys } = await loginClientFrom(io.env, endpoint ? { endpoint } : {}).listKeys();
    if (args.flags.json) io.out(JSON.stringify(keys, null, 2));
    else if (keys.length === 0) io.err('no API keys; create one with `colony keys create --name <name>`');
    else for (const k of keys) io.out(keyLine(k));
    return 0;
  },
};
