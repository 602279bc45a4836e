// `colony integrations enable|disable <id> --office <office> --agent <agent>`: turns a configured
// integration on or off for one agent; `--wait` follows it until it is active.
import { clientFor } from '../../client-from-env.ts';
import { printRecord } from '../../output.ts';
import { follow } from '../../progress.ts';
import type { ColonyClient, OfficeIntegration } from '../../sdk/client.ts';
import type { CommandContext, Handler } from '../../spec.ts';
import { CliFailure, EXIT } from '../../usage-error.ts';

/** Pure: the configured integration (or instance) a toggle acts on. */
export function configuredEntry(
  list: readonly OfficeIntegration[],
  id: string,
  instance: string | undefined,
): OfficeIntegration | undefined {
  return list.find((i) => i.integrationId === id && (instance ? i.instanceLabel === instance : true));
}

async function secretNameOf(client: ColonyClient, ctx: CommandContext, office: string, id: string) {
  const instance = typeof ctx.flags.instance === 'string' ? ctx.flags.instance : undefined;
  const { integrations } = await client.officeIntegrations(office);
  const entry = configuredEntry(integrations, id, instance);
  if (!entry)
    throw new CliFailure(
      `${id}${instance ? ` (instance ${instance})` : ''} is not configured in office ${office}`,
      EXIT.notFound,
      `store its credentials first: colony integrations secret set ${id} --office ${office} --from-env-file <file>`,
    );
  return entry.registration.SecretName;
}

/** Pure: the agent is on and the integration active, or it failed (the condition says why). */
export function settledFor(agent: string) {
  return (entry: OfficeIntegration | undefined) =>
    entry?.registration.Status === 'error' ||
    (entry?.registration.Status === 'active' && entry.agents.some((a) => a.agentName === agent && a.enabled));
}

async function toggle(ctx: CommandContext, enabled: boolean): Promise<number> {
  const id = ctx.args[0] as string;
  const office = String(ctx.flags.office);
  const agent = String(ctx.flags.agent);
  const client = await clientFor(ctx);
  const secretName = await secretNameOf(client, ctx, office, id);
  const result = await client.toggleAgent(office, id, agent, { enabled, secretName });
  if (!(enabled && ctx.flags.wait)) {
    printRecord(ctx, result, () => [`${enabled ? 'Enabled' : 'Disabled'} ${id} for ${agent} in ${office}`]);
    return 0;
  }
  const instance = typeof ctx.flags.instance === 'string' ? ctx.flags.instance : undefined;
  const settled = await follow({
    io: ctx.io,
    read: async () => {
      const polled = await client.officeIntegrationsPolled(office);
      return {
        value: configuredEntry(polled.value.integrations, id, instance),
        retryAfterSeconds: polled.retryAfterSeconds,
      };
    },
    settled: settledFor(agent),
    describe: (e) => `${id} for ${agent}: ${e?.registration.Status ?? 'pending'}`,
    interrupted: {
      message: `stopped waiting; ${id} stays enabled for ${agent} and the cluster carries on`,
      hint: `check with \`colony integrations status --office ${office}\``,
    },
  });
  const status = settled?.registration.Status ?? 'pending';
  const why = settled?.conditions.find((c) => c.status !== 'True')?.message;
  printRecord(ctx, { ...result, status }, () => [
    `Enabled ${id} for ${agent} in ${office}: ${status}${status === 'error' && why ? ` (${why})` : ''}`,
  ]);
  return status === 'active' ? 0 : 1;
}

export const enable: Handler = (ctx) => toggle(ctx, true);
export const disable: Handler = (ctx) => toggle(ctx, false);
