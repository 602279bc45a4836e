// `colony keys create`: prints the new key once (stdout, so `$(colony keys create …)` captures it)
// with a warning on stderr.
import { clientFor } from '../../client-from-env.ts';
import { printJson } from '../../output.ts';
import type { CreateApiKeyInput } from '../../sdk/client.ts';
import type { FlagValues, Handler } from '../../spec.ts';

const list = (v: string) => v.split(/[\s,]+/).filter(Boolean);

/** Pure: the request body from the parsed (already validated) flags. */
export function createKeyInput(flags: FlagValues): CreateApiKeyInput {
  const { name, scopes, offices } = flags;
  const days = flags['expires-in-days'];
  return {
    name: String(name),
    ...(typeof scopes === 'string' ? { scopes: list(scopes) } : {}),
    ...(typeof offices === 'string' ? { offices: list(offices) } : {}),
    ...(typeof days === 'number' ? { expiresInDays: days } : {}),
  };
}

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const created = await client.createKey(createKeyInput(ctx.flags));
  ctx.io.err(
    `Created ${created.id} (${created.name}; scopes ${created.scopes.join(' ')}; ` +
      `offices ${created.offices?.join(' ') ?? 'all of yours'}; expires ${created.expiresAt ?? 'never'}).`,
  );
  ctx.io.err('Store the key now: it is not shown again. Use it as COLONY_API_KEY or a bearer token.');
  if (ctx.json) printJson(ctx.io, created);
  else ctx.io.out(created.key);
  return 0;
};
