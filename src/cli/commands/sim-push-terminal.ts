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
  malformedRate: number;
  duplicateRate: number;
  unansweredRate: number;
  dropMidBodyRate: number;
  seed: number;
  quiet?: boolean;
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
    .option('--malformed-rate <r>', 'add a malformed line to this share of uploads', probability, 0)
    .option('--duplicate-rate <r>', 'upload this share of batches twice', probability, 0)
    .option('--unanswered-rate <r>', 'hang up before the answer on this share of uploads', probability, 0)
    .option('--drop-mid-body-rate <r>', 'hang up in the middle of the body on this share of uploads', probability, 0)
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
    serial: o.serial,
    users: o.users,
    punches: o.punches,
    batchSize: o.batch,
    delayMs: o.delay === undefined ? undefined : o.delay * 1000,
    errorDelayMs: o.errorDelay === undefined ? undefined : o.errorDelay * 1000,
    timezone: o.timezone,
    faults: {
      malformedRate: o.malformedRate,
      duplicateRate: o.duplicateRate,
      unansweredRate: o.unansweredRate,
      dropMidBodyRate: o.dropMidBodyRate,
      seed: o.seed,
    },
    log: o.quiet ? undefined : (line) => io.out(`${line}\n`),
  });
  io.out(`push terminal simulator SN=${o.serial} pushing to ${o.server} (Ctrl-C stops)\n`);
  if (o.punchEvery) sim.startPunching(o.punchEvery * 1000);
  await io.until;
  await sim.stop();
  const s = sim.stats();
  io.out(
    `SN=${o.serial}: ${sim.records().length} records, ${sim.acked().length} acknowledged, ${sim.pending()} not yet; ` +
      `${s.okUploads} uploads OK, ${s.failedRequests} failed requests, ${s.resentAfterOk} records resent after OK` +
      `${s.lastError ? `; last error: ${s.lastError}` : ''}\n`,
  );
  return EXIT.OK;
}
