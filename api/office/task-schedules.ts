// Pure: which task templates should be scheduled in each office (those of integrations enabled for
// at least one agent), and when a cron schedule next fires.
import { CronExpressionParser } from 'cron-parser';
import type { AgentBindingObject, IntegrationObject } from '../../cluster/objects.ts';
import type { IntegrationRegistry } from '../../integrations/registry/load-registry.ts';
import type { DesiredSchedule } from './tasks-repo.ts';

/** The first firing strictly after `after` (epoch ms), in the template's time zone. */
export function nextRun(cron: string, timezone: string, after: number): number {
  return CronExpressionParser.parse(cron, { currentDate: new Date(after), tz: timezone })
    .next()
    .getTime();
}

export function desiredSchedules(
  registry: IntegrationRegistry,
  integrations: readonly IntegrationObject[],
  bindings: readonly AgentBindingObject[],
): DesiredSchedule[] {
  const out: DesiredSchedule[] = [];
  for (const i of integrations) {
    const m = registry.get(i.spec.integrationId);
    const ns = i.metadata?.namespace;
    const enabled = bindings.some(
      (b) =>
        b.metadata?.namespace === ns &&
        b.spec.secretName === i.spec.secretName &&
        b.spec.enabled &&
        !b.metadata?.deletionTimestamp,
    );
    if (!m?.taskTemplates || !enabled || i.metadata?.deletionTimestamp) continue;
    for (const t of m.taskTemplates) {
      out.push({
        officeId: i.spec.officeId,
        integrationId: i.metadata?.name ?? m.id,
        template: t.name,
        title: t.title,
        prompt: t.prompt,
        cron: t.schedule ?? null,
        timezone: t.timezone,
      });
    }
  }
  return out;
}
