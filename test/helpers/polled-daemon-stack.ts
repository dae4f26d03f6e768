import { existsSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { Database } from '../../src/journal/sqlite-driver.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from './tmp.js';

/**
 * An HRMS simulator and a config for `punchgate run` with one terminal it polls every second
 * (`name`, user admin, its password in `<name>.pass`), in a temp folder: the shape the Dahua,
 * Hikvision and BioTime daemon tests share. `terminal` is the rest of the terminal's entry (kind,
 * address, zone...) and wins over these defaults.
 */
export async function polledDaemonStack(opts: {
  tmpPrefix: string;
  token: string;
  site: string;
  name: string;
  password: string;
  terminal: Record<string, unknown>;
}) {
  const tmp = tempDir(opts.tmpPrefix);
  const hrms = await startHrmsSim({ tokens: [opts.token] });
  writeFileSync(tmp.path('token'), opts.token + '\n');
  writeFileSync(tmp.path(`${opts.name}.pass`), opts.password + '\n');
  const configPath = tmp.path('punchgate.yaml');
  writeFileSync(
    configPath,
    stringify({
      site: opts.site,
      journal: { path: tmp.path('journal.db') },
      // Long, as the terminal's timeout: the HRMS simulator answers from the test's own process.
      hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
      delivery: { batchSize: 200, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 } },
      status: { intervalMs: 300, listen: '127.0.0.1:0' },
      terminals: [
        {
          name: opts.name,
          username: 'admin',
          passwordFile: `${opts.name}.pass`,
          schedule: '* * * * * *',
          // The simulator answers from the test's own process, which a loaded CI box may hold for a
          // second or more: a shorter timeout failed polls by chance (a test of timeouts sets its own).
          timeoutMs: 5000,
          ...opts.terminal,
        },
      ],
    }),
  );
  /**
   * What the terminal's source journalled under `key`, parsed (read while no daemon runs); none
   * before the journal or its table exists (the first daemon may be killed before it made them).
   */
  const sourceState = <T>(key: string): T | undefined => {
    if (!existsSync(tmp.path('journal.db'))) return undefined;
    const db = new Database(tmp.path('journal.db'), { readonly: true });
    try {
      const row = db.prepare(`SELECT value FROM source_state WHERE terminal = ? AND key = ?`).get(opts.name, key) as
        { value: string } | undefined;
      return row?.value ? (JSON.parse(row.value) as T) : undefined;
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
    sourceState,
    async stop() {
      await hrms.stop();
      tmp.cleanup();
    },
  };
}
