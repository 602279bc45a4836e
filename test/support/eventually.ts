// eventually(): polls a condition until it holds, with no dependency, so the unit tier can use it too.

/** Polls `fn` until it returns a truthy value or the deadline passes. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
