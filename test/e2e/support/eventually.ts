// Polls until a check passes: the cluster converges on its own time. The last failure is reported.
// A check that knows waiting cannot help (an image that is not on the node) throws GiveUp.
export class GiveUp extends Error {
  override readonly name = 'GiveUp';
}

export async function eventually<T>(
  what: string,
  check: () => Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  let last: unknown;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (err instanceof GiveUp) throw new Error(`gave up waiting until ${what}: ${err.message}`);
      last = err;
    }
    if (Date.now() > deadline) {
      const reason = last instanceof Error ? last.message : String(last);
      throw new Error(`timed out waiting until ${what}: ${reason}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 1000));
  }
}
