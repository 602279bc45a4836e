// Races a promise against a deadline, so a call to a part that stopped answering still settles.

/** Rejects with `onLate()`'s error when `p` has not settled within `ms`; the timer never outlives it. */
export async function withTimeout<T>(
  p: Promise<T>,
  ms: number,
  onLate: () => Error = () => new Error(`no answer within ${ms} ms`),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onLate()), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}
