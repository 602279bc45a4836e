// `colony integrations status --office <office>`: what is configured in an office, its status and the
// agents it is enabled for.
import { clientFor } from '../../client-from-env.ts';
import { printList } from '../../output.ts';
import type { OfficeIntegration } from '../../sdk/client.ts';
import type { Handler } from '../../spec.ts';

export const run: Handler = async (ctx) => {
  const office = String(ctx.flags.office);
  const client = await clientFor(ctx);
  const { integrations } = await client.officeIntegrations(office);
  printList<OfficeIntegration>(
    ctx,
    integrations,
    [
      {
        header: 'integration',
        cell: (i) => i.integrationId + (i.instanceLabel ? `/${i.instanceLabel}` : ''),
      },
      { header: 'status', cell: (i) => i.registration.Status },
      {
        header: 'agents',
        cell: (i) =>
          i.agents
            .filter((a) => a.enabled)
            .map((a) => a.agentName)
            .join(',') || '-',
      },
    ],
    `No integrations configured in ${office} yet; add one with \`colony integrations secret set <id> --office ${office} --from-env-file <file>\`.`,
  );
  return 0;
};
