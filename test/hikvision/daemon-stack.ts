import { existsSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { Database } from '../../src/journal/sqlite-driver.js';
import { DEFAULT_HIK_SERIAL } from '../../src/sim/hikvision/index.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD } from './helpers.js';

const TOKEN = 'hik-stack-token';

/**
 * An HRMS simulator and a config for `punchgate run` with one Hikvision terminal `reception` at
 * `url` (polled every second, the alert stream on, the device at +05:30), in a temp folder.
 */
export async function hikDaemonStack(
  url: string,
  opts: { terminal?: Record<string, unknown>; password?: string; serial?: string } = {},
) {
  const tmp = tempDir('punchgate-hik-daemon-');
  const hrms = await startHrmsSim({ tokens: [TOKEN] });
  writeFileSync(tmp.path('token'), TOKEN + '\n');
  writeFileSync(tmp.path('reception.pass'), (opts.password ?? PASSWORD) + '\n');
  const configPath = tmp.path('punchgate.yaml');
  writeFileSync(
    configPath,
    stringify({
      site: 'plant-h',
      journal: { path: tmp.path('journal.db') },
      // Long, as the terminal's timeout: the HRMS simulator answers from the test's own process.
      hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
      delivery: { batchSize: 200, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 } },
      status: { intervalMs: 300, listen: '127.0.0.1:0' },
      terminals: [
        {
          name: 'reception',
          kind: 'hikvision',
          url,
          username: 'admin',
          passwordFile: 'reception.pass',
          schedule: '* * * * * *',
          timezone: 'Asia/Kolkata',
          // The simulator answers from the test's own process, which a loaded CI box may hold for a
          // second or more: a shorter timeout failed polls by chance (a test of timeouts sets its own).
          timeoutMs: 5000,
          realtime: true,
          ...opts.terminal,
        },
      ],
    }),
  );
  /** The journalled cursor (read while no daemon runs). */
  const cursor = (): number | undefined => {
    if (!existsSync(tmp.path('journal.db'))) return undefined;
    const db = new Database(tmp.path('journal.db'), { readonly: true });
    try {
      const row = db
        .prepare(`SELECT value FROM source_state WHERE terminal = 'reception' AND key = ?`)
        .get(`events:${opts.serial ?? DEFAULT_HIK_SERIAL}`) as { value: string } | undefined;
      return row ? (JSON.parse(row.value) as { serialNo: number }).serialNo : undefined;
    } catch {
      return undefined; // the first daemon was killed before it made the table
    } finally {
      db.close();
    }
  };
  return {
    tmp,
    hrms,
    configPath,
    cursor,
    async stop() {
      await hrms.stop();
      tmp.cleanup();
    },
  };
}
