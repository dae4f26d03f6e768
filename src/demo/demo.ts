import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import { sinksOf } from '../config/sinks.js';
import { checkTerminalConfig } from '../sources/build.js';
import { startPushTerminalSim, type PushTerminalSim } from '../sim/push-terminal/index.js';
import { startTerminalSim } from '../sim/terminal/index.js';
import { localTime } from '../util/local-time.js';
import { createLogger } from '../util/logger.js';
import { cliEntry } from '../util/package-paths.js';
import { handleSignals } from '../util/signals.js';
import { startDemoHrms } from './hrms-sims.js';
import { startDemoHttpTerminals } from './http-terminals.js';
import { startOnDemoPort, stopAndThrow } from './port-taken.js';
import { writeDemoRunConfig, type DemoHrms } from './run-config.js';

export interface DemoOptions {
  /** The demo config (config/demo.yaml): the daemon runs a config written from it (run-config.ts). */
  configPath: string;
  /** The demo config a message tells to copy (the installed one, where configPath is a temporary copy). */
  configShown: string;
  /** The HRMS simulated and delivered to. */
  hrms: DemoHrms;
  /** The terminal kinds simulated (the demo config's terminals of other kinds are left out). */
  terminals: readonly string[];
  punchEverySeconds: number;
  out: NodeJS.WritableStream;
}

/** `14:05:09 [daemon  ] ...`: every line of the demo with the box's time, whoever wrote it. */
const say = (out: NodeJS.WritableStream, who: string, line: string) =>
  out.write(`${localTime(Date.now()).slice(11, 19)} [${who.padEnd(8)}] ${line}\n`);
/** The time a pretty log line starts with (`2026-11-23 14:05:09 +01:00 `): `say` puts its own in front. */
const LOG_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?: [+-]\d{2}:\d{2})? /;

/** The users of the demo's terminals: the first digit of a code tells which terminal punched. */
const DEMO_CODES = { zk: 1001, attendance: 2001, security: 3001, biotime: 4001, dahua: 5001 } as const;

/** Every code the demo's terminals punch with (the Frappe and Odoo simulators get an employee for each). */
const ALL_DEMO_CODES = Object.values(DEMO_CODES).flatMap((first) => [0, 1, 2, 3].map((i) => String(first + i)));

/**
 * The demo's push terminals (as many as the demo config has, up to two): the first speaks the
 * attendance protocol (ATTLOG), the second ZKTeco's Security PUSH (rtlog, as SpeedFace face
 * terminals do, with a door event now and then). Each pushes a punch every few seconds.
 */
function startDemoPushTerminals(
  config: ReturnType<typeof loadConfig>,
  opts: DemoOptions,
  stopping: () => boolean,
): PushTerminalSim[] {
  if (!config.adms) return [];
  const port = Number(config.adms.listen.split(':').at(-1));
  const server = `http://127.0.0.1:${port}`;
  const push = config.terminals.filter((x) => x.kind === 'adms').slice(0, 2);
  return push.map((t, n) => {
    const protocol = n === 0 ? 'attendance' : 'security';
    say(opts.out, 'demo', `push terminal simulator SN=${t.serial} (${protocol} protocol) pushing to ${server}`);
    const sim = startPushTerminalSim({
      server,
      serial: t.serial,
      protocol,
      users: [0, 1, 2].map((i) => ({
        pin: String(DEMO_CODES[protocol] + i),
        name: `${n === 0 ? 'Push' : 'Face'} User ${i + 1}`,
        privilege: 0,
        card: '',
      })),
      timezone: t.timezone,
      errorDelayMs: 2000,
      faults: { nonPunchRate: protocol === 'security' ? 0.3 : 0 },
      // Once the demo stops the daemon, a refused call is the demo's own doing: not worth a line.
      log: (line) => void (stopping() || say(opts.out, 'push', line)),
    });
    sim.startPunching(opts.punchEverySeconds * 1000 * (n === 0 ? 1.7 : 2.3));
    return sim;
  });
}

/** `gate-1 4, lobby 2, door 2`: punches the HRMS received, by the terminal whose users made them. */
function receivedByTerminal(config: ReturnType<typeof loadConfig>, codes: readonly string[]): string {
  const push = config.terminals.filter((t) => t.kind === 'adms').map((t) => t.name);
  const names = [
    config.terminals.find((t) => t.kind === 'zk')?.name,
    push[0],
    push[1],
    config.terminals.find((t) => t.kind === 'biotime')?.name,
    config.terminals.find((t) => t.kind === 'dahua')?.name,
  ];
  return Object.values(DEMO_CODES)
    .map((first, i) => [names[i], codes.filter((c) => c.startsWith(String(first).slice(0, 1))).length] as const)
    .filter(([name]) => name !== undefined)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
}

/**
 * The demo: a simulated ZK terminal that punches every few seconds, a simulated push terminal
 * that pushes its punches, a simulated HRMS, and `punchgate run` as a child process with the
 * demo config, all on loopback. The console shows
 * punches flowing and, every few seconds, the status log. Ctrl-C stops everything cleanly.
 */
export async function runDemo(opts: DemoOptions): Promise<number> {
  const { out } = opts;
  const run = writeDemoRunConfig(opts.configPath, opts.hrms, opts.terminals);
  const config = loadConfig(run.path, checkTerminalConfig);
  if (run.freshJournal) say(out, 'demo', `a fresh journal: the last demo's ${config.journal.path} was removed`);
  const sink = sinksOf(config)[0]!;

  const simLogger = createLogger({
    pretty: true,
    level: 'info',
    destination: { write: (s: string) => void say(out, 'terminal', s.trimEnd().replace(LOG_TIME, '')) },
  });
  const zk = config.terminals.find((t) => t.kind === 'zk');
  const where = { demoConfig: opts.configShown };
  const terminal =
    zk?.kind === 'zk'
      ? await startOnDemoPort(
          { ...where, what: 'ZK terminal simulator', address: `${zk.host}:${zk.port}`, key: `${zk.name}'s port` },
          () =>
            startTerminalSim({
              host: zk.host,
              port: zk.port,
              serialNumber: 'DEMO0001',
              logger: simLogger,
              users: [0, 1, 2, 3].map((i) => ({
                uid: i + 1,
                userId: String(DEMO_CODES.zk + i),
                name: `Demo User ${i + 1}`,
              })),
              punches: [],
            }),
        )
      : undefined;
  const hrms = await startOnDemoPort(
    { ...where, what: 'HRMS simulator', address: new URL(sink.baseUrl).host, key: 'hrms.baseUrl' },
    () =>
      startDemoHrms({
        hrms: opts.hrms,
        baseUrl: sink.baseUrl,
        secrets: run.secrets,
        codes: ALL_DEMO_CODES,
        log: (line) => say(out, 'hrms', line),
      }),
  ).catch((e: unknown) => stopAndThrow([terminal], e));
  const http = await startDemoHttpTerminals({
    terminals: config.terminals,
    passwords: { biotime: run.secrets.biotime, dahua: run.secrets.dahua },
    codes: DEMO_CODES,
    punchEveryMs: opts.punchEverySeconds * 1000,
    say: (who, line) => say(out, who, line),
    demoConfig: opts.configShown,
  }).catch((e: unknown) => stopAndThrow([terminal, hrms], e));
  say(
    out,
    'demo',
    `the daemon runs ${run.path} (its secrets in files beside it; try: punchgate check --config ${run.path})`,
  );
  if (zk?.kind === 'zk') say(out, 'demo', `ZK terminal simulator on ${zk.host}:${zk.port} (${zk.name})`);
  for (const line of http.started) say(out, 'demo', line);
  say(out, 'demo', `punches go to ${hrms.label} on ${hrms.url} (sink "${sink.name}", kind ${sink.kind})`);
  terminal?.startPunching(opts.punchEverySeconds * 1000);
  // The push terminal starts calling once the daemon's receiver listens (a refused first call
  // would only be retried, but reads like a fault to someone trying the demo).
  let push: PushTerminalSim[] | undefined;
  let stopping = false;
  const daemonSays = (line: string) => {
    say(out, 'daemon', line.replace(LOG_TIME, ''));
    // The page's address as the daemon really serves it (the demo config asks for any free port).
    const page = /status page on (http:\/\/\S+)/.exec(line)?.[1];
    if (page) say(out, 'demo', `status page: ${page} (open it in a browser; /metrics for Prometheus)`);
    if (!push && line.includes('push terminal receiver listening'))
      push = startDemoPushTerminals(config, opts, () => stopping);
  };

  const daemon: ChildProcess = spawn(process.execPath, [cliEntry(), 'run', '--config', run.path, '--pretty'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C reaches the demo, which then stops the daemon with one SIGTERM.
    detached: true,
  });
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
    stopping = true;
    say(out, 'demo', 'stopping...');
    daemon.kill('SIGTERM');
  };
  const disposeSignals = handleSignals({ stop });
  const code = await exited;
  disposeSignals();
  clearInterval(statusTimer);
  terminal?.stopPunching();
  const codes = hrms.receivedCodes();
  say(
    out,
    'demo',
    `daemon exited with ${code}; ${hrms.label} received ${codes.length} punches (${receivedByTerminal(config, codes)})`,
  );
  await Promise.all([terminal?.stop(), hrms.stop(), http.stop(), ...(push ?? []).map((s) => s.stop())]);
  return code;
}
