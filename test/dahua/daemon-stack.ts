import { existsSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from '../helpers/tmp.js';
import { PASSWORD, ZONE } from './helpers.js';

const TOKEN = 'dahua-stack-token';

/**
 * An HRMS simulator and a config for `punchgate run` with one Dahua terminal `front-door` on
 * 127.0.0.1:`port` (polled every second unless told otherwise, the device at +05:30), in a temp folder.
 */
export async function dahuaDaemonStack(port: number, terminal: Record<string, unknown> = {}) {
  const tmp = tempDir('punchgate-dahua-daemon-');
  const hrms = await startHrmsSim({ tokens: [TOKEN] });
  writeFileSync(tmp.path('token'), TOKEN + '\n');
  writeFileSync(tmp.path('front-door.pass'), PASSWORD + '\n');
  const configPath = tmp.path('punchgate.yaml');
  writeFileSync(
    configPath,
    stringify({
      site: 'plant-d',
      journal: { path: tmp.path('journal.db') },
      // Long, as the terminal's timeout: the HRMS simulator answers from the test's own process.
      hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
      delivery: { batchSize: 200, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 } },
      status: { intervalMs: 300, listen: '127.0.0.1:0' },
      terminals: [
        {
          name: 'front-door',
          kind: 'dahua',
          host: '127.0.0.1',
          port,
          username: 'admin',
          passwordFile: 'front-door.pass',
          schedule: '* * * * * *',
          timezone: ZONE,
          // The simulator answers from the test's own process, which a loaded CI box may hold for a
          // second or more: a shorter timeout failed polls by chance (a test of timeouts sets its own).
          timeoutMs: 5000,
          pageSize: 100,
          ...terminal,
        },
      ],
    }),
  );
  /** The journalled cursor (read while no daemon runs). */
  const cursor = (serial: string): { recNo?: number; time?: number } | undefined => {
    if (!existsSync(tmp.path('journal.db'))) return undefined;
    const db = new Database(tmp.path('journal.db'), { readonly: true });
    try {
      const row = db
        .prepare(`SELECT value FROM source_state WHERE terminal = 'front-door' AND key = ?`)
        .get(`records:${serial}`) as { value: string } | undefined;
      return row?.value ? (JSON.parse(row.value) as { recNo?: number; time?: number }) : undefined;
    } catch {
      return undefined;
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
