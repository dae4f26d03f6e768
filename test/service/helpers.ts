import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';
import { Journal } from '../../src/journal/journal.js';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { startTerminalSim, type TerminalSim, type TerminalSimOptions } from '../../src/sim/terminal/index.js';
import { tempDir } from '../helpers/tmp.js';

export const GOOD_TOKEN = 'tk_G00d_7f3a9cQ2xV';
export const WRONG_TOKEN = 'tk_Wr0ng_51be02Lm8R';
export const COMM_KEY = 8_675_309;

/** A site on loopback: an HRMS simulator, a terminal simulator, a journal and a config pointing at them. */
export interface Site {
  dir: string;
  configPath: string;
  tokenPath: string;
  journalPath: string;
  hrms: HrmsSim;
  terminal: TerminalSim;
  /** Rewrites the config with changes to the default one. */
  writeConfig(change?: (cfg: Record<string, unknown>) => void): void;
  stop(): Promise<void>;
}

export async function startSite(opts: { terminal?: TerminalSimOptions; journal?: boolean } = {}): Promise<Site> {
  const tmp = tempDir('punchgate-check-');
  const hrms = await startHrmsSim({ tokens: [GOOD_TOKEN] });
  const terminal = await startTerminalSim({
    commKey: COMM_KEY,
    serialNumber: 'CHK0000001',
    users: [{ uid: 1, userId: '1001', name: 'Ada' }],
    punches: [{ userId: '1001', logTime: '2026-01-05 08:00:00' }],
    ...opts.terminal,
  });
  const configPath = tmp.path('punchgate.yaml');
  const tokenPath = tmp.path('token');
  const journalPath = tmp.path('journal.db');
  writeFileSync(tokenPath, `${GOOD_TOKEN}\n`, { mode: 0o600 });
  if (opts.journal ?? true) Journal.open({ path: journalPath, site: 'chk', mode: 'owner' }).close();

  const writeConfig = (change?: (cfg: Record<string, unknown>) => void) => {
    const cfg: Record<string, unknown> = {
      site: 'chk',
      journal: { path: 'journal.db' },
      // Long timeouts: the simulators answer from the test's own process, which a loaded CI box
      // may hold for a second or more (a check of an unreachable device sets its own short one).
      hrms: { baseUrl: hrms.url, tokenFile: 'token', timeoutMs: 20_000, connectTimeoutMs: 5000 },
      terminals: [
        {
          name: 'gate-1',
          kind: 'zk',
          host: '127.0.0.1',
          port: terminal.port,
          transport: 'tcp',
          commKey: COMM_KEY,
          timeoutMs: 5000,
        },
      ],
    };
    change?.(cfg);
    writeFileSync(configPath, stringify(cfg));
  };
  writeConfig();

  return {
    dir: tmp.dir,
    configPath,
    tokenPath,
    journalPath,
    hrms,
    terminal,
    writeConfig,
    stop: async () => {
      await Promise.all([hrms.stop(), terminal.stop()]);
      tmp.cleanup();
    },
  };
}

/**
 * A loopback port where nothing listens (bound, then closed). Taken below the kernel's ephemeral
 * range (freePort): a port from inside it (a listen on port 0, closed again) could be handed to
 * another test's `listen(0)` meanwhile, and the refused terminal would answer by chance.
 */
export async function closedPort(): Promise<number> {
  return freePort();
}

/** A TCP server that accepts connections and never answers: a terminal held or hung. */
export async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Runs `punchgate check` as a child process on the built CLI (asynchronously: the simulators
 * live in this process and must keep answering). The fixture registers the command itself when
 * the CLI does not list it yet, so the test does not depend on the wiring.
 */
export function runCheckCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  as: { uid?: number; gid?: number } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { PUNCHGATE_HRMS_TOKEN: _t, CREDENTIALS_DIRECTORY: _c, PUNCHGATE_CONFIG: _p, ...base } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [join(process.cwd(), 'test/service/fixtures/check-cli.mjs'), ...args],
      { env: { ...base, ...env }, encoding: 'utf8', timeout: 20_000, ...as },
      (err, stdout, stderr) => {
        const code = err ? (err as { code?: unknown }).code : 0;
        if (err && typeof code !== 'number') return reject(err);
        resolve({ status: code as number, stdout, stderr });
      },
    );
  });
}
