// `colony integrations list [--q term] [--category c]`: the registry of the Colony you point at.
import type { Command } from '../../args.ts';
import { clientFrom } from '../../client-from-env.ts';

export const list: Command = {
  summary: 'List the integrations of the registry, optionally searched by name or alias',
  usage: 'colony integrations list [--q <term>] [--category llm|communication|services]',
  async run(args, io) {
    const q = typeof args.flags.q === 'string' ? args.flags.q : undefined;
    const category = typeof args.flags.category === 'string' ? args.flags.category : undefined;
    const { integrations } = await clientFrom(io.env).listIntegrations({
      ...(q ? { q } : {}),
      ...(category ? { category } : {}),
    });
    for (const i of integrations)
      io.out(`${i.id.padEnd(20)} ${i.category.padEnd(14)} ${i.wizard.padEnd(8)} ${i.name}`);
    return 0;
  },
};
