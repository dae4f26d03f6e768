/**
 * `punchgate sim terminal`: runs the ZK terminal simulator until SIGINT/SIGTERM.
 * Needs no punchgate config file.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { wallClockAt } from '../../punch.js';
import { CMD } from '../../sources/zk/protocol/constants.js';
import { DataFileError, loadDataFiles } from '../../sim/terminal/data-file.js';
import {
  DEFAULT_SERIAL,
  startTerminalSim,
  type SimPunch,
  type SimTemplate,
  type SimUser,
  type TerminalFaults,
} from '../../sim/terminal/index.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { createLogger } from '../../util/logger.js';
import { aborted, abortOnStopSignal } from '../../util/signals.js';
import { action, globalOptions, simCommand } from '../common.js';
import { collect, listenOrTempfail } from '../sim-options.js';
import { escapeControls } from '../../util/terminal-text.js';
import { int, seconds } from '../option-values.js';

interface SimTerminalOptions {
  host: string;
  port: number;
  users?: number;
  punches?: number;
  file?: string[];
  punchEvery?: number;
  commKey?: number;
  serial?: string;
  pacing: number;
  split?: number;
  dropReply: number[];
  dropOnce?: boolean;
  separateAck?: boolean;
  reorderDatagrams?: boolean;
  closeAfterExit?: boolean;
  maxSessions?: number;
  slowLink?: number;
  disconnectAfter?: number;
  errorOnWrrq?: boolean;
  failWriteAfter?: number;
  failWriteMode: 'disconnect' | 'error';
  recordCountOffset: number;
  seed: number;
  userCapacity?: number;
  logCapacity?: number;
  doublesRecord?: boolean;
  fingers?: number;
  fpVersion?: string;
  tcp: boolean;
  udp: boolean;
  /** The terminal's clock minus the box's (seconds): a clock on the wrong zone, DST not applied. */
  clockOffset: number;
  attRecord?: 40 | 49 | 16 | 8;
  timeByte?: 3 | 4;
  stateByte?: 8 | 9;
  connectReply?: number;
  connectAuth: 'accept' | 'refuse';
  refuseLog?: number;
}

/** A command code by number (1503) or name (DATA_WRRQ); repeatable. */
function commandCode(v: string, prev: number[]): number[] {
  const byName = (CMD as Record<string, number>)[v.trim().toUpperCase()];
  const code = byName ?? int(0, 0xffff)(v);
  return [...prev, code];
}

function oneOf<T extends number>(allowed: readonly T[]) {
  return (v: string): T => {
    const n = Number(v);
    if (!allowed.includes(n as T)) throw new InvalidArgumentError(`expected ${allowed.join(', ')}`);
    return n as T;
  };
}

function connectAuthMode(v: string): 'accept' | 'refuse' {
  if (v !== 'accept' && v !== 'refuse') throw new InvalidArgumentError('expected accept or refuse');
  return v;
}

function writeMode(v: string): 'disconnect' | 'error' {
  if (v !== 'disconnect' && v !== 'error') throw new InvalidArgumentError('expected disconnect or error');
  return v;
}

export function registerSimTerminal(program: Command): void {
  simCommand(program)
    .command('terminal')
    .description('simulate a ZKTeco terminal (ZK protocol, TCP and UDP on one port)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'TCP and UDP port', int(0, 65535), 4370)
    .option('--users <n>', 'generate N users', int(0, 65535))
    .option('--punches <m>', 'generate M punches of those users', int(0))
    .option('--seed <n>', 'seed of the generated users and punches: give each simulated terminal its own', int(0), 1)
    .option('--file <file>', 'users/punches from a JSON or CSV file (repeatable)', collect)
    .option('--punch-every <seconds>', 'make a punch every SECONDS (pushed as a real-time event)', seconds)
    .option('--comm-key <k>', 'require this comm key (CMD_AUTH)', int(0, 0xffffffff))
    .option('--serial <sn>', 'serial number (~SerialNumber)')
    .option('--pacing <ms>', 'pause after every packet written (node-zklib needs 2-5)', int(0, 10_000), 3)
    .option('--split <n>', 'split CMD_DATA into packets of N data bytes (e.g. 1008)', int(1, 65528))
    .option('--drop-reply <cmd>', 'never answer this command (code or name, repeatable)', commandCode, [])
    .option('--drop-once', 'drop only the first matching reply')
    .option('--separate-ack', "send a chunk's trailing ACK_OK in its own write")
    .option('--reorder-datagrams', "UDP: send each chunk's datagrams out of order (a reordering link)")
    .option('--close-after-exit', 'close the TCP connection after answering EXIT')
    .option('--max-sessions <n>', 'refuse TCP connections beyond N open ones', int(0))
    .option('--slow-link <bps>', 'throttle writes to BPS bytes per second', int(1))
    .option('--disconnect-after <bytes>', 'cut the TCP connection after BYTES dataset bytes', int(0))
    .option('--error-on-wrrq', 'answer DATA_WRRQ with ACK_ERROR')
    .option('--fail-write-after <n>', 'after N user writes succeeded, fail the next one (once)', int(0))
    .option(
      '--fail-write-mode <mode>',
      'how that write fails: disconnect (no reply, connection cut) or error (ACK_ERROR)',
      writeMode,
      'disconnect',
    )
    .option(
      '--record-count-offset <n>',
      'announce N more records than the log holds (firmware that lies), or fewer (punches recorded during the download)',
      int(-100_000, 100_000),
      0,
    )
    .option('--user-capacity <n>', 'users the terminal holds at most (default 3000)', int(1, 65535))
    .option(
      '--log-capacity <n>',
      'attendance records the log holds at most (default 100000); a full log writes each new punch over its oldest',
      int(1, 10_000_000),
    )
    .option(
      '--doubles-record',
      'downloads send the record before the last again in place of the last (a firmware fault)',
    )
    .option('--fingers <n>', 'give each generated user N stand-in fingerprint templates', int(0, 10))
    .option('--fp-version <v>', 'fingerprint algorithm version (~ZKFPVersion), default 10')
    .option(
      '--clock-offset <seconds>',
      "the terminal's clock minus the box's, e.g. 7200 (2 h ahead: a zone never set) or -3600",
      int(-86_400 * 366, 86_400 * 366),
      0,
    )
    .option('--no-tcp', 'UDP only')
    .option('--no-udp', 'TCP only')
    .option(
      '--att-record <bytes>',
      'firmware: attendance records of 40, 49 (2022+ firmware), 16 (old firmware) or 8 bytes (black-and-white); default 40 on TCP, 16 on UDP',
      oneOf([40, 49, 16, 8] as const),
    )
    .option(
      '--time-byte <n>',
      'firmware: the byte an 8-byte record keeps its time at (3, or 4 as on MA300-BT / ZEM500)',
      oneOf([3, 4] as const),
    )
    .option(
      '--state-byte <n>',
      'firmware: the byte of a 16-byte record holding the in/out state (8 or 9)',
      oneOf([8, 9] as const),
    )
    .option('--connect-reply <code>', 'firmware: answer CONNECT with this code (2025+ firmware: 6001)', int(0, 0xffff))
    .option(
      '--connect-auth <mode>',
      'after --connect-reply: accept the comm key login, or refuse every one',
      connectAuthMode,
      'accept',
    )
    .option(
      '--refuse-log <code>',
      'firmware: answer the attendance log download with this code (push-only firmware: 4989)',
      int(0, 0xffff),
    )
    .action(action(async (opts: SimTerminalOptions, cmd: Command) => runSimTerminal(opts, cmd)));
}

async function runSimTerminal(opts: SimTerminalOptions, cmd: Command): Promise<number> {
  const g = globalOptions(cmd);
  const logger = createLogger({
    level: g.logLevel ?? 'info',
    pretty: g.pretty ?? Boolean(process.stdout.isTTY),
  });

  let users: SimUser[] = [];
  let punches: SimPunch[] = [];
  let templates: SimTemplate[] = [];
  let skipped = 0;
  const files = opts.file ?? [];
  if (files.length > 0) {
    try {
      const data = loadDataFiles(files);
      ({ users, punches, templates } = data);
      for (const p of data.problems) process.stderr.write(`punchgate: ${escapeControls(p)} (skipped)\n`);
      skipped = data.problems.length;
    } catch (e) {
      if (e instanceof DataFileError) throw new ExitError(e.message, EXIT.DATAERR);
      throw e;
    }
  }
  const noData = files.length === 0 && opts.users === undefined && opts.punches === undefined;
  const genUsers = opts.users ?? (noData ? 10 : 0);
  const genPunches = opts.punches ?? (noData ? 100 : 0);
  if ((genPunches > 0 || opts.punchEvery) && genUsers === 0 && users.length === 0) {
    throw new ExitError('punches need users: --users N or a --file with users or punches', EXIT.CONFIG);
  }

  const faults: Partial<TerminalFaults> = {
    pacingMs: opts.pacing,
    splitPackets: opts.split ?? null,
    dropReplyTo: opts.dropReply,
    dropReplyOnce: Boolean(opts.dropOnce),
    separateTrailingAck: Boolean(opts.separateAck),
    reorderDatagrams: Boolean(opts.reorderDatagrams),
    closeAfterExit: Boolean(opts.closeAfterExit),
    maxSessions: opts.maxSessions ?? null,
    slowLinkBytesPerSecond: opts.slowLink ?? null,
    disconnectMidTransferAfterBytes: opts.disconnectAfter ?? null,
    errorOnDataWrrq: Boolean(opts.errorOnWrrq),
    failWriteAfter: opts.failWriteAfter ?? null,
    failWriteMode: opts.failWriteMode,
    recordCountOffset: opts.recordCountOffset,
  };
  const sim = await listenOrTempfail(
    opts.host,
    opts.port,
    startTerminalSim({
      host: opts.host,
      port: opts.port,
      tcp: opts.tcp,
      udp: opts.udp,
      serialNumber: opts.serial,
      commKey: opts.commKey ?? 0,
      firmwareQuirks: {
        attendanceRecord: opts.attRecord,
        timeByte8: opts.timeByte,
        stateByte: opts.stateByte,
        connectReply: opts.connectReply,
        connectAuth: opts.connectAuth,
        ...(opts.doublesRecord ? { doublesRecord: true } : {}),
        attendanceRefusal: opts.refuseLog,
      },
      users,
      punches,
      templates,
      userCapacity: opts.userCapacity,
      logCapacity: opts.logCapacity,
      fpVersion: opts.fpVersion,
      generate:
        genUsers > 0 || genPunches > 0
          ? { users: genUsers, punches: genPunches, fingersPerUser: opts.fingers, seed: opts.seed }
          : undefined,
      faults,
      logger,
      ...(opts.clockOffset ? { clock: () => wallClockAt(Date.now() + opts.clockOffset * 1000) } : {}),
    }),
  );

  const sn = opts.serial ?? DEFAULT_SERIAL;
  const protocols = [opts.tcp ? 'tcp' : '', opts.udp ? 'udp' : ''].filter(Boolean).join('+');
  process.stdout.write(`ZK terminal simulator ${sn} listening on ${sim.host}:${sim.port} (${protocols})\n`);
  logger.info({ users: sim.users().length, punches: sim.punches().length }, 'terminal data loaded');
  if (opts.punchEvery) sim.startPunching(opts.punchEvery * 1000);

  const stop = abortOnStopSignal();
  await aborted(stop.signal);
  stop.dispose();
  await sim.stop();
  logger.info('terminal simulator stopped');
  return skipped > 0 ? EXIT.DATAERR : EXIT.OK;
}
