import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { tempDir } from '../helpers/tmp.js';
import { spawnDaemon, TOKEN, type DaemonProcess } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';

export interface PushTerminalEntry {
  name: string;
  serial: string;
  allowFrom?: string[];
  /** The terminal's zone (default UTC). */
  timezone?: string;
}

/** An HRMS simulator and a config whose daemon receives push terminals on a fixed loopback port. */
export async function startPushStack(opts: {
  terminals: PushTerminalEntry[];
  adms?: Record<string, unknown>;
  /** Merged into the config's `status` (e.g. listen: '127.0.0.1:0' for the status page). */
  status?: Record<string, unknown>;
}) {
  const tmp = tempDir('punchgate-adms-daemon-');
  const hrms = await startHrmsSim({ tokens: [TOKEN] });
  const port = await freePort();
  writeFileSync(tmp.path('token'), TOKEN + '\n');
  const configPath = tmp.path('punchgate.yaml');
  const config = (terminals: PushTerminalEntry[]) => ({
    site: 'plant-p',
    journal: { path: tmp.path('journal.db') },
    // Long: the HRMS simulator answers from the test's own process, which a loaded CI box may hold
    // for seconds (a 2 s deadline then made a resend, and log lines other than the ones tested).
    hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
    delivery: { batchSize: 100, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 } },
    // The page on a port of its own: the default 9330 is taken by whichever test daemon ran first,
    // and the others then carry a "cannot listen" alert.
    status: { intervalMs: 300, listen: '127.0.0.1:0', ...opts.status },
    adms: { listen: `127.0.0.1:${port}`, delay: 1, errorDelay: 1, ...opts.adms },
    terminals: terminals.map((t) => ({ kind: 'adms', timezone: 'UTC', ...t })),
  });
  const writeConfig = (terminals: PushTerminalEntry[] = opts.terminals) =>
    writeFileSync(configPath, stringify(config(terminals)));
  writeConfig();
  return {
    tmp,
    hrms,
    port,
    url: `http://127.0.0.1:${port}`,
    configPath,
    writeConfig,
    async stop() {
      await hrms.stop();
      tmp.cleanup();
    },
  };
}

/**
 * startPushStack with `punchgate run` on it, its push receiver listening. `stop` ends the daemon
 * (SIGTERM, waited for) and then the stack; if the receiver never comes, both are ended here.
 */
export async function startPushDaemon(opts: Parameters<typeof startPushStack>[0]) {
  const stack = await startPushStack(opts);
  const d: DaemonProcess = spawnDaemon(stack.configPath);
  const stop = async () => {
    d.child.kill('SIGTERM');
    await d.exited;
    await stack.stop();
  };
  try {
    await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver');
  } catch (e) {
    await stop();
    throw e;
  }
  return { stack, d, stop };
}
