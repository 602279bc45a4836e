// `colony keys list`: your active API keys, with a hint but never the key.
import { clientFor } from '../../client-from-env.ts';
import { type Column, printList } from '../../output.ts';
import type { ApiKey } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

export const keyColumns: Column<ApiKey>[] = [
  { header: 'id', cell: (k) => k.id },
  { header: 'name', cell: (k) => k.name },
  { header: 'hint', cell: (k) => k.hint },
  { header: 'scopes', cell: (k) => k.scopes.join(',') },
  { header: 'offices', cell: (k) => (k.offices ? k.offices.join(',') : 'all-offices') },
  { header: 'expires', cell: (k) => `expires ${k.expiresAt ?? 'never'}` },
  { header: 'last used', cell: (k) => `last used ${k.lastUsedAt ?? 'never'}` },
];

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const { keys } = await client.listKeys();
  printList(ctx, keys, keyColumns, 'no API keys; create one with `colony keys create --name <name>`');
  return 0;
};
