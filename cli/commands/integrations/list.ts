// `colony integrations list`: the registry of the Colony you point at.
import { clientFor } from '../../client-from-env.ts';
import { printList } from '../../output.ts';
import type { IntegrationDefinition } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const { q, category } = ctx.flags;
  const client = await clientFor(ctx);
  const { integrations } = await client.listIntegrations({
    ...(typeof q === 'string' ? { q } : {}),
    ...(typeof category === 'string' ? { category } : {}),
  });
  printList<IntegrationDefinition>(
    ctx,
    integrations,
    [
      { header: 'id', cell: (i) => i.id },
      { header: 'category', cell: (i) => i.category },
      { header: 'setup', cell: (i) => i.wizard },
      { header: 'name', cell: (i) => i.name },
    ],
    q ? `No integration matches "${q}".` : 'No integrations in this registry.',
  );
  return 0;
};
