/**
 * The one way tests wait for something asynchronous: poll `cond` (which may itself be asynchronous,
 * such as a CLI run) every 20 ms until it holds, fail after `timeoutMs` naming `what`. (Backoff and
 * schedules use fake clocks, not waits.)
 */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
