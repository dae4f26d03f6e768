import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema, type DeliveryConfig, type HrmsConfig } from '../../src/config/schema.js';

/**
 * A scratch directory for journals and node-zklib's error logs. BENCH_DIR chooses the file
 * system (default the OS temp dir): fsync cost, and so every journal figure, depends on it.
 */
export function scratchDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), `punchgate-bench-${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const BENCH_TOKEN = 'bench-token';
export const BENCH_SITE = 'bench';

/** The hrms and delivery sections of a real (validated) config pointing at the simulator. */
export function deliverySettings(baseUrl: string, batchSize: number): { hrms: HrmsConfig; delivery: DeliveryConfig } {
  const c = configSchema.parse({
    site: BENCH_SITE,
    journal: { path: '/unused/journal.db' },
    hrms: { baseUrl },
    delivery: { batchSize },
  });
  return { hrms: c.hrms!, delivery: c.delivery };
}
