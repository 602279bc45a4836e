// Polls a snapshot or restore until it leaves pending/running, for the commands' --wait flag.
const settledStatuses = new Set(['completed', 'failed', 'deleted']);

export async function waitUntilSettled<T extends { status: string }>(
  read: () => Promise<T>,
  opts: { intervalMs?: number; timeoutMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  for (;;) {
    const current = await read();
    if (settledStatuses.has(current.status)) return current;
    if (Date.now() > deadline) throw new Error(`still ${current.status} after waiting`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
  }
}

/** One line per part: `resources completed`, `database skipped: <why>`. */
export function partLines(parts: Record<string, { status: string; detail?: string }>): string[] {
  return Object.entries(parts).map(
    ([name, p]) => `  ${name.padEnd(10)} ${p.status}${p.detail ? `: ${p.detail}` : ''}`,
  );
}
