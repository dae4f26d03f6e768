import { writeFileSync } from 'node:fs';
import type { tempDir } from './tmp.js';

/**
 * A `kind: frappe` sink named erp for a test's config, its API key and secret written to erp.key
 * and erp.secret in `tmp` (files, as a site keeps them). Its timeout is long: the Frappe simulator
 * answers from the test's own process, which a loaded box may hold for seconds. `more` is merged
 * in (concurrency, ...).
 */
export function frappeSink(
  tmp: ReturnType<typeof tempDir>,
  baseUrl: string,
  credentials: { key: string; secret: string },
  more: Record<string, unknown> = {},
) {
  writeFileSync(tmp.path('erp.key'), `${credentials.key}\n`);
  writeFileSync(tmp.path('erp.secret'), `${credentials.secret}\n`);
  return {
    name: 'erp',
    kind: 'frappe',
    baseUrl,
    apiKeyFile: tmp.path('erp.key'),
    apiSecretFile: tmp.path('erp.secret'),
    timeoutMs: 20_000,
    ...more,
  };
}
