// Health probes of the parts that are running; the status API and /readyz are built from them.
import { withTimeout } from '../../shared/with-timeout.ts';

export type ServiceState = 'operational' | 'degraded' | 'down';

export interface ServiceStatus {
  name: string;
  status: ServiceState;
  description: string;
  latencyMs: number | null;
  checkedAt: string;
  detail?: string;
}

export interface Probe {
  name: string;
  description: string;
  /** Resolves with a detail line when healthy, rejects when down; `degraded` is returned explicitly. */
  check(): Promise<{ status?: ServiceState; detail?: string }>;
}

const PROBE_TIMEOUT_MS = 2_000;

export async function runProbe(probe: Probe, now: () => Date = () => new Date()): Promise<ServiceStatus> {
  const started = performance.now();
  try {
    const r = await withTimeout(probe.check(), PROBE_TIMEOUT_MS);
    return {
      name: probe.name,
      status: r.status ?? 'operational',
      description: probe.description,
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
      checkedAt: now().toISOString(),
      ...(r.detail ? { detail: r.detail } : {}),
    };
  } catch (err) {
    return {
      name: probe.name,
      status: 'down',
      description: probe.description,
      latencyMs: null,
      checkedAt: now().toISOString(),
      detail: (err as Error).message,
    };
  }
}

/** The worst state among the services, which is what the platform as a whole reports. */
export function overallState(services: readonly ServiceStatus[]): ServiceState {
  if (services.some((s) => s.status === 'down')) return 'down';
  if (services.some((s) => s.status === 'degraded')) return 'degraded';
  return 'operational';
}
