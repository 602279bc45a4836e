// `colony integrations show <id>`: one definition and the credential fields its setup asks for.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import type { IntegrationDefinition } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

/** Pure: what `show` prints for a definition. */
export function describeIntegration(d: IntegrationDefinition): string[] {
  return [
    `${d.name} (${d.id}) — ${d.description}`,
    `setup: ${d.wizard}; guide: ${d.guideUrl}`,
    ...d.requiredSecrets.map(
      (f) =>
        `  ${f.key}${f.required ? '' : ' (optional)'}: ${f.label}${f.helpUrl ? ` — ${f.helpLabel}: ${f.helpUrl}` : ''}`,
    ),
    `env: ${d.agentEnvVars.join(', ') || '(none)'}; layers: ${d.layers.join(', ') || '(none)'}`,
    ...(d.dependsOn.length ? [`depends on: ${d.dependsOn.join(', ')}`] : []),
  ];
}

export const run: Handler = async (ctx) => {
  const client = await clientFor(ctx);
  const d = await client.getIntegration(ctx.args[0] as string);
  printRecord(ctx, d, () => describeIntegration(d));
  return 0;
};
