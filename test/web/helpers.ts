/** Samples of a Prometheus text exposition: `name{labels}` -> value. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)$/.exec(line);
    if (m) out.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return out;
}

/** The metric names a text exposition declares (`# TYPE name type`), with their types. */
export function declaredMetrics(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) out.set(m[1]!, m[2]!);
  return out;
}

/**
 * Reads a URL over and over in the background (every 50 ms), so that a test can `waitFor` a
 * condition on the latest answer (waitFor's condition is synchronous).
 */
export function poll(
  url: string,
  init: RequestInit = {},
): { latest: () => string; status: () => number; stop: () => void } {
  let text = '';
  let status = 0;
  let stopped = false;
  void (async () => {
    while (!stopped) {
      try {
        const res = await fetch(url, init);
        text = await res.text();
        status = res.status;
      } catch {
        status = 0;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return { latest: () => text, status: () => status, stop: () => void (stopped = true) };
}
