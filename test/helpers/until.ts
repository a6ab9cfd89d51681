// The one bounded wait of the test suite: poll a condition until it holds, or fail naming what never happened.

/** Polls `check` until it returns a truthy value (which it returns), or fails after `timeoutMs`. */
export async function until<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
  }
}
