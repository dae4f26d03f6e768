import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import { checkTerminalConfig } from '../sources/build.js';
import { startHrmsSim } from '../sim/hrms/index.js';
import { startPushTerminalSim, type PushTerminalSim } from '../sim/push-terminal/index.js';
import { startTerminalSim } from '../sim/terminal/index.js';
import { localTime } from '../util/local-time.js';
import { createLogger } from '../util/logger.js';
import { cliEntry } from '../util/package-paths.js';
import { handleSignals } from '../util/signals.js';

export interface DemoOptions {
  configPath: string;
  punchEverySeconds: number;
  out: NodeJS.WritableStream;
}

/** `14:05:09 [daemon  ] ...`: every line of the demo with the box's time, whoever wrote it. */
const say = (out: NodeJS.WritableStream, who: string, line: string) =>
  out.write(`${localTime(Date.now()).slice(11, 19)} [${who.padEnd(8)}] ${line}\n`);
/** The time a pretty log line starts with (`2026-11-23 14:05:09 +01:00 `): `say` puts its own in front. */
const LOG_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?: [+-]\d{2}:\d{2})? /;

/** The demo's push terminal (when the demo config has one): it pushes a punch every few seconds to the receiver. */
function startDemoPushTerminal(config: ReturnType<typeof loadConfig>, opts: DemoOptions): PushTerminalSim | undefined {
  const t = config.terminals.find((x) => x.kind === 'adms');
  if (!t || t.kind !== 'adms' || !config.adms) return undefined;
  const port = Number(config.adms.listen.split(':').at(-1));
  const server = `http://127.0.0.1:${port}`;
  say(opts.out, 'demo', `push terminal simulator SN=${t.serial} pushing to ${server}`);
  const sim = startPushTerminalSim({
    server,
    serial: t.serial,
    users: [2001, 2002, 2003].map((pin, i) => ({
      pin: String(pin),
      name: `Push User ${i + 1}`,
      privilege: 0,
      card: '',
    })),
    timezone: t.timezone,
    errorDelayMs: 2000,
    log: (line) => say(opts.out, 'push', line),
  });
  sim.startPunching(opts.punchEverySeconds * 1000 * 1.7);
  return sim;
}

/**
 * The demo: a simulated ZK terminal that punches every few seconds, a simulated push terminal
 * that pushes its punches, a simulated HRMS, and `punchgate run` as a child process with the
 * demo config, all on loopback. The console shows
 * punches flowing and, every few seconds, the status log. Ctrl-C stops everything cleanly.
 */
export async function runDemo(opts: DemoOptions): Promise<number> {
  const { out } = opts;
  const config = loadConfig(opts.configPath, checkTerminalConfig);
  const zk = config.terminals.find((t) => t.kind === 'zk');
  if (!zk || zk.kind !== 'zk') throw new Error(`${opts.configPath}: the demo needs one zk terminal`);
  const token = readFileSync(config.hrms.tokenFile!, 'utf8').trim();

  const simLogger = createLogger({
    pretty: true,
    level: 'info',
    destination: { write: (s: string) => void say(out, 'terminal', s.trimEnd().replace(LOG_TIME, '')) },
  });
  const terminal = await startTerminalSim({
    host: zk.host,
    port: zk.port,
    serialNumber: 'DEMO0001',
    logger: simLogger,
    users: [1001, 1002, 1003, 1004].map((id, i) => ({ uid: i + 1, userId: String(id), name: `Demo User ${i + 1}` })),
    punches: [],
  });
  const hrms = await startHrmsSim({
    host: '127.0.0.1',
    port: Number(new URL(config.hrms.baseUrl).port),
    tokens: [token],
    log: (line) => say(out, 'hrms', line),
  });
  say(out, 'demo', `terminal simulator on ${zk.host}:${zk.port}, HRMS simulator on ${hrms.url}`);
  terminal.startPunching(opts.punchEverySeconds * 1000);
  // The push terminal starts calling once the daemon's receiver listens (a refused first call
  // would only be retried, but reads like a fault to someone trying the demo).
  let push: PushTerminalSim | undefined;
  const daemonSays = (line: string) => {
    say(out, 'daemon', line.replace(LOG_TIME, ''));
    // The page's address as the daemon really serves it (the demo config asks for any free port).
    const page = /status page on (http:\/\/\S+)/.exec(line)?.[1];
    if (page) say(out, 'demo', `status page: ${page} (open it in a browser; /metrics for Prometheus)`);
    if (!push && line.includes('push terminal receiver listening')) push = startDemoPushTerminal(config, opts);
  };

  const daemon: ChildProcess = spawn(
    process.execPath,
    [cliEntry(), 'run', '--config', resolve(opts.configPath), '--pretty'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: Ctrl-C reaches the demo, which then stops the daemon with one SIGTERM.
      detached: true,
    },
  );
  process.once('exit', () => daemon.exitCode === null && daemon.kill('SIGKILL'));
  for (const stream of [daemon.stdout!, daemon.stderr!]) {
    stream.on('data', (d: Buffer) => d.toString().trimEnd().split('\n').forEach(daemonSays));
  }

  let lastStatus = '';
  const statusTimer = setInterval(() => {
    const path = config.status.path!;
    if (!existsSync(path)) return;
    const text = readFileSync(path, 'utf8');
    if (text === lastStatus) return;
    lastStatus = text;
    out.write(`\n----- ${path} -----\n${text}------------------------------\n\n`);
  }, 2000);

  const exited = new Promise<number>((res) => daemon.on('exit', (code) => res(code ?? 1)));
  const stop = () => {
    say(out, 'demo', 'stopping...');
    daemon.kill('SIGTERM');
  };
  const disposeSignals = handleSignals({ stop });
  const code = await exited;
  disposeSignals();
  clearInterval(statusTimer);
  terminal.stopPunching();
  say(out, 'demo', `daemon exited with ${code}; the HRMS simulator received ${hrms.attendance().length} punches`);
  await Promise.all([terminal.stop(), hrms.stop(), push?.stop()]);
  return code;
}
