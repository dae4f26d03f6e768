import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { startHrmsSim, type HrmsSimOptions } from '../../src/sim/hrms/index.js';
import { startTerminalSim, type SimFirmware, type TerminalSim } from '../../src/sim/terminal/index.js';
import { unitEnvironment, unitNodeArgs } from '../../bench/lib/unit.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

export const TOKEN = 'stack-token-5f2b9c';
export const COMM_KEY = 808080;

/** A terminal simulator, an HRMS simulator and a config for the daemon, in a temp folder. */
export async function startStack(
  opts: {
    terminals?: number;
    delivery?: Record<string, unknown>;
    /** More terminals for the config as they are (e.g. a serial reader on a pty). */
    extraTerminals?: Record<string, unknown>[];
    /** Configured names of the simulated terminals (default gate-1, gate-2...). */
    names?: string[];
    /** Merged into the config's `status` (the status page listens on an ephemeral loopback port). */
    status?: Record<string, unknown>;
    hrms?: HrmsSimOptions;
    serialNumbers?: string[];
    commKey?: number;
    /** Firmware switches of the simulated terminals, and settings merged into their config. */
    firmware?: SimFirmware;
    /**
     * Fixed ports of the simulated terminals (default: any free one). A test that stops a terminal
     * and starts it again on its port takes one from freePort: a port from listen(0) may meanwhile
     * become the local port of any outgoing connection on the box, and the restart would fail.
     */
    terminalPorts?: number[];
    zk?: Record<string, unknown>;
  } = {},
) {
  const commKey = opts.commKey ?? COMM_KEY;
  const tmp = tempDir('punchgate-daemon-');
  const hrms = await startHrmsSim({ tokens: [TOKEN], ...opts.hrms });
  const terminals: TerminalSim[] = [];
  for (let i = 0; i < (opts.terminals ?? 1); i++) {
    terminals.push(
      await startTerminalSim({
        serialNumber: opts.serialNumbers?.[i] ?? `SN-${i + 1}`,
        commKey,
        users: [{ uid: 1, userId: '1001', name: 'A' }],
        punches: [],
        firmwareQuirks: opts.firmware,
        ...(opts.terminalPorts?.[i] !== undefined ? { port: opts.terminalPorts[i] } : {}),
      }),
    );
  }
  writeFileSync(tmp.path('token'), TOKEN + '\n');
  const terminalConfig = (t: TerminalSim, i: number) => ({
    name: opts.names?.[i] ?? `gate-${i + 1}`,
    kind: 'zk',
    host: '127.0.0.1',
    port: t.port,
    transport: 'tcp',
    commKey,
    schedule: '* * * * * *',
    realtime: true,
    // The simulators answer from the test's own process, which a loaded CI box may hold for a
    // second or more: a 1 s timeout then failed polls by chance (a test that wants a terminal's
    // timeout quick sets zk.timeoutMs).
    timeoutMs: 5000,
    ...opts.zk,
  });
  const config = (ts: TerminalSim[] = terminals) => ({
    site: 'plant-t',
    journal: { path: tmp.path('journal.db') },
    // Long, as the terminals' timeout above: the HRMS simulator answers from the test's process.
    hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
    delivery: { batchSize: 20, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 }, ...opts.delivery },
    status: { intervalMs: 300, listen: '127.0.0.1:0', ...opts.status },
    terminals: [...ts.map(terminalConfig), ...(opts.extraTerminals ?? [])],
  });
  const configPath = tmp.path('punchgate.yaml');
  const writeConfig = (ts?: TerminalSim[], change?: (c: ReturnType<typeof config>) => void) => {
    const c = config(ts);
    change?.(c);
    writeFileSync(configPath, stringify(c));
  };
  writeConfig();
  return {
    tmp,
    hrms,
    terminals,
    configPath,
    writeConfig,
    async stop() {
      await Promise.all([hrms.stop(), ...terminals.map((t) => t.stop())]);
      tmp.cleanup();
    },
  };
}

export interface DaemonProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `punchgate run` as a real child process, run as the systemd unit runs it (its node flags and environment, `env` on top). */
export { unitEnvironment };

export function spawnDaemon(
  configPath: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  /** A command the daemon runs under (e.g. strace and its options); none: node itself. */
  under: string[] = [],
): DaemonProcess {
  const command = [
    ...under,
    process.execPath,
    ...unitNodeArgs(),
    'dist/punchgate.js',
    'run',
    '--config',
    configPath,
    ...args,
  ];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...unitEnvironment(), NOTIFY_SOCKET: '', PUNCHGATE_HRMS_TOKEN: '', ...env },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('exit', (code, signal) => res({ code, signal })),
  );
  return { child, output: () => out, exited };
}

/** The status page's URL, from the daemon's log line `status page on http://...` (waits for it). */
export async function statusUrl(d: DaemonProcess): Promise<string> {
  const find = () => /status page on (http:\/\/[^\s/]+\/)/.exec(d.output())?.[1];
  await waitFor(() => find() !== undefined || d.child.exitCode !== null, 15_000, 'the status page log line');
  const url = find();
  if (!url) throw new Error(`punchgate run exited without serving the status page:\n${d.output()}`);
  return url;
}

/**
 * Everything a daemon and its commands left where a secret could hide: the daemon's output, the
 * commands' output, and the journal and status files as bytes (latin1, so nothing is lost).
 */
export function everythingWritten(dir: string, d: DaemonProcess, outputs: readonly string[]): string {
  const files = readdirSync(dir).filter((f) => /journal\.db|status\.txt/.test(f));
  return [d.output(), ...outputs, ...files.map((f) => readFileSync(`${dir}/${f}`).toString('latin1'))].join('\n');
}

/** Distinct "code@time" keys. */
export const keys = (xs: { userId?: string; biometriccode?: string; logTime?: string; logDate?: string }[]) =>
  [...new Set(xs.map((x) => `${x.userId ?? x.biometriccode}@${x.logTime ?? x.logDate}`))].sort();

/**
 * Punch times for a simulated terminal, one second apart from `YYYY-MM-DD HH:00:01`: a test file
 * takes its own hour, so that its punches never meet another file's in the journal or the HRMS.
 */
export function punchTimes(day: string, hour: number): () => string {
  let n = 0;
  const p = (v: number) => String(v).padStart(2, '0');
  return () => {
    n++;
    return `${day} ${p(hour)}:${p(Math.floor(n / 60) % 60)}:${p(n % 60)}`;
  };
}
