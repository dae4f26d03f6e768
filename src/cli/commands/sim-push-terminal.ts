/**
 * `punchgate sim push-terminal`: a simulated push terminal (ZKTeco ADMS / iclock firmware)
 * that uploads to a gateway's receiver until SIGINT/SIGTERM. Needs no punchgate config file.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_PUSH_SERIAL, startPushTerminalSim } from '../../sim/push-terminal/index.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { action, simCommand, withConsoleIo, type ConsoleIo } from '../common.js';
import { int, probability, seconds } from '../option-values.js';

export interface SimPushTerminalOptions {
  server: string;
  serial: string;
  users: number;
  punches: number;
  punchEvery?: number;
  batch: number;
  delay?: number;
  errorDelay?: number;
  timezone?: string;
  /** The terminal's clock minus the box's (seconds). */
  clockOffset: number;
  malformedRate: number;
  duplicateRate: number;
  unansweredRate: number;
  dropMidBodyRate: number;
  seed: number;
  quiet?: boolean;
  protocol: 'attendance' | 'security';
  stamp?: string;
  attlogFields: 8 | 10 | 11;
  contentType: boolean;
  connectionClose?: boolean;
  multilineResults?: boolean;
  clockUnset: number;
  nonPunchRate: number;
  deviceType: boolean;
  localAddress?: string;
  dialect?: '2.0.1';
  queryData?: boolean;
}

function dialect(v: string): '2.0.1' {
  if (v !== '2.0.1') throw new InvalidArgumentError('expected 2.0.1');
  return v;
}

function protocol(v: string): 'attendance' | 'security' {
  if (v !== 'attendance' && v !== 'security') throw new InvalidArgumentError('expected attendance or security');
  return v;
}

function attlogFields(v: string): 8 | 10 | 11 {
  const n = Number(v);
  if (n !== 8 && n !== 10 && n !== 11) throw new InvalidArgumentError('expected 8, 10 or 11');
  return n;
}

function stampValue(v: string): string {
  if (!/^[A-Za-z0-9]{1,20}$/.test(v)) throw new InvalidArgumentError('expected a stamp such as 9999');
  return v;
}

function serverUrl(v: string): string {
  if (!URL.canParse(v) || new URL(v).protocol !== 'http:')
    throw new InvalidArgumentError('expected the receiver as http://HOST:PORT (push firmware speaks plain HTTP)');
  return v;
}

export function registerSimPushTerminal(program: Command): void {
  simCommand(program)
    .command('push-terminal')
    .description('simulate a ZKTeco push terminal (ADMS / iclock) that uploads to a gateway')
    .requiredOption('--server <url>', 'the gateway receiver, e.g. http://127.0.0.1:8081', serverUrl)
    .option('--serial <sn>', 'serial number (SN=) to send', DEFAULT_PUSH_SERIAL)
    .option('--users <n>', 'enrolled users', int(1, 100_000), 10)
    .option('--punches <m>', 'records in the log at start', int(0), 0)
    .option('--punch-every <seconds>', 'make a punch every SECONDS (uploaded at once)', seconds)
    .option('--batch <n>', 'records per upload at most', int(1, 100_000), 100)
    .option('--delay <seconds>', "poll interval instead of the server's Delay", seconds)
    .option('--error-delay <seconds>', "wait after a failure instead of the server's ErrorDelay", seconds)
    .option('--timezone <zone>', "the terminal clock's zone (default the box's)")
    .option(
      '--clock-offset <seconds>',
      "the terminal's clock minus the box's, e.g. 7200 (2 h ahead: a zone never set)",
      int(-86_400 * 366, 86_400 * 366),
      0,
    )
    .option('--malformed-rate <r>', 'add a malformed line to this share of uploads', probability, 0)
    .option('--duplicate-rate <r>', 'upload this share of batches twice', probability, 0)
    .option('--unanswered-rate <r>', 'hang up before the answer on this share of uploads', probability, 0)
    .option('--drop-mid-body-rate <r>', 'hang up in the middle of the body on this share of uploads', probability, 0)
    .option(
      '--protocol <p>',
      "attendance (ATTLOG) or security (ZKTeco's Security PUSH: registry, push, cookie, rtlog, rtstate, tabledata)",
      protocol,
      'attendance',
    )
    .option(
      '--stamp <value>',
      'send this Stamp= on every ATTLOG upload, as field firmware does (e.g. 9999)',
      stampValue,
    )
    .option(
      '--attlog-fields <n>',
      'ATTLOG fields per line: 8, 10 (as captured) or 11 (plus a sequence number)',
      attlogFields,
      10,
    )
    .option('--no-content-type', 'send uploads without a Content-Type')
    .option('--connection-close', 'send Connection: close on every request')
    .option('--multiline-results', 'send each command result spread over lines (ID=..\\nReturn=..\\nCMD=..)')
    .option(
      '--clock-unset <n>',
      'security: N rows written before the clock was set (1971--10--29 -23:-27:-54)',
      int(0),
      0,
    )
    .option(
      '--non-punch-rate <r>',
      'security: add a refusal, unregistered card or door event after this share of passes',
      probability,
      0,
    )
    .option('--no-device-type', 'security: no DeviceType=acc in the handshake (the terminal registers first)')
    .option(
      '--dialect <version>',
      'firmware speaking PUSH 2.0.1 (the only one): no pushver, reads Stamp= and a bit-string TransFlag, takes only a bare OK',
      dialect,
    )
    .option('--query-data', 'answer users queries on /iclock/querydata with cmdid=, no devicecmd result (BioFace A1)')
    .option(
      '--local-address <ip>',
      'send from this local address, e.g. 127.0.0.2 (another device using the serial; on loopback only for tests)',
    )
    .option('--seed <n>', 'same seed, same faults and punches', int(0), 1)
    .option('--quiet', 'print only the summary')
    .action(action(async (opts: SimPushTerminalOptions) => withConsoleIo((io) => runSimPushTerminal(opts, io))));
}

/** The command body, separate from signal handling so that tests can run it in-process. */
export async function runSimPushTerminal(o: SimPushTerminalOptions, io: ConsoleIo): Promise<number> {
  if (o.timezone) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: o.timezone });
    } catch {
      throw new ExitError(`--timezone ${o.timezone}: not an IANA zone such as Europe/Berlin`, EXIT.CONFIG);
    }
  }
  const sim = startPushTerminalSim({
    server: o.server,
    localAddress: o.localAddress,
    serial: o.serial,
    users: o.users,
    punches: o.punches,
    batchSize: o.batch,
    delayMs: o.delay === undefined ? undefined : o.delay * 1000,
    errorDelayMs: o.errorDelay === undefined ? undefined : o.errorDelay * 1000,
    timezone: o.timezone,
    clockOffsetSeconds: o.clockOffset,
    protocol: o.protocol,
    variant: {
      stamp: o.stamp,
      attlogFields: o.attlogFields,
      noContentType: !o.contentType,
      connectionClose: o.connectionClose,
      multilineResults: o.multilineResults,
      clockUnsetRows: o.clockUnset,
      deviceTypeInHandshake: o.deviceType,
      dialect: o.dialect,
      queryDataAnswers: o.queryData,
    },
    faults: {
      nonPunchRate: o.nonPunchRate,
      malformedRate: o.malformedRate,
      duplicateRate: o.duplicateRate,
      unansweredRate: o.unansweredRate,
      dropMidBodyRate: o.dropMidBodyRate,
      seed: o.seed,
    },
    log: o.quiet ? undefined : (line) => io.out(`${line}\n`),
  });
  io.out(
    `push terminal simulator SN=${o.serial} (${o.protocol === 'security' ? 'Security PUSH' : 'attendance protocol'}) pushing to ${o.server} (Ctrl-C stops)\n`,
  );
  if (o.punchEvery) sim.startPunching(o.punchEvery * 1000);
  await io.until;
  await sim.stop();
  const s = sim.stats();
  io.out(
    `SN=${o.serial}: ${sim.records().length} records (${sim.passes().length} passes), ${sim.acked().length} acknowledged, ${sim.pending()} not yet; ` +
      `${s.okUploads} uploads OK, ${s.failedRequests} failed requests, ${s.resentAfterOk} records resent after OK` +
      `${s.lastError ? `; last error: ${s.lastError}` : ''}\n`,
  );
  return EXIT.OK;
}
