/**
 * Retries `check` until it stops throwing, for conditions that become true asynchronously
 * (a proxy receiving new config). The deadline only bounds a hung test; nothing asserts on time.
 */
export async function eventually<T>(check: () => T | Promise<T>, { deadlineMs = 20_000, everyMs = 50 } = {}): Promise<T> {
  const giveUpAt = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
