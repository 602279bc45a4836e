// `colony integrations show <id>`: one definition and the credential fields its setup asks for.
import type { Command } from '../../args.ts';
import { clientFrom } from '../../client-from-env.ts';

export const show: Command = {
  summary: 'Show one integration: its credential fields, env vars, layers and dependencies',
  usage: 'colony integrations show <id>',
  async run(args, io) {
    const id = args.positionals[0];
    if (!id) {
      io.err(`usage: ${show.usage}`);
      return 64;
    }
    const d = await clientFrom(io.env).getIntegration(id);
    io.out(`${d.name} (${d.id}) — ${d.description}`);
    io.out(`setup: ${d.wizard}; guide: ${d.guideUrl}`);
    for (const f of d.requiredSecrets) {
      io.out(
        `  ${f.key}${f.required ? '' : ' (optional)'}: ${f.label}${f.helpUrl ? ` — ${f.helpLabel}: ${f.helpUrl}` : ''}`,
      );
    }
    io.out(`env: ${d.agentEnvVars.join(', ') || '(none)'}; layers: ${d.layers.join(', ') || '(none)'}`);
    if (d.dependsOn.length) io.out(`depends on: ${d.dependsOn.join(', ')}`);
    return 0;
  },
};
