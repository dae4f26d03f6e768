import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidArgumentError, type Command } from 'commander';
import {
  createPtyPair,
  SocatMissingError,
  startSerialSim,
  type LineEnding,
  type PtyPair,
  readerCodesProblem,
  SIM_READERS,
  type SimReader,
} from '../../sim/serial/index.js';
import { DEFAULT_SERIAL_PATTERN } from '../../sources/serial/line-parser.js';
import { printable } from '../../util/terminal-text.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { action, simCommand, withConsoleIo, type ConsoleIo } from '../common.js';

export const DEFAULT_SIM_LINK = join(tmpdir(), 'punchgate-serial');

/** Option values after commander's parsers. */
export interface SimSerialCliOptions {
  link?: string;
  device?: string;
  format: 'regex' | 'card';
  /** A reader that does not print lines (rdm6300, rdm6300-held, wiegand-keypad, wiegand-keypad-8bit, noise, em18, 7941e). */
  reader?: SimReader;
  rate: number;
  count?: number;
  noise: number;
  codes?: string[];
  split?: boolean;
  seed?: number;
  eol: LineEnding;
  baudRate: number;
  quiet?: boolean;
  /** With --link: keep the device this long after the last line so the reader gets it all (ms). */
  linger?: number;
}

const STOPPED = Symbol('stopped');

/** The command body, separate from signal handling so that tests can run it in-process. */
export async function runSimSerial(o: SimSerialCliOptions, io: ConsoleIo): Promise<number> {
  if (o.link !== undefined && o.device !== undefined)
    throw new ExitError('use --link or --device, not both', EXIT.CONFIG);
  const codesProblem = o.reader ? readerCodesProblem(o.reader, o.codes) : undefined;
  if (codesProblem) throw new ExitError(codesProblem, EXIT.USAGE);
  const stopped = io.until.then((): typeof STOPPED => STOPPED);
  let pair: PtyPair | null = null;
  try {
    let path = o.device;
    if (path === undefined) {
      pair = await openPair(o.link ?? DEFAULT_SIM_LINK);
      io.err(
        `serial simulator: point a serial terminal (format: ${o.reader ? 'card' : o.format}) at ${pair.devicePath}\n` +
          (o.format === 'regex'
            ? `  lines look like 1042,2026-11-22 08:00:01 (default pattern ${DEFAULT_SERIAL_PATTERN})\n`
            : '') +
          'waiting for a reader to open it...\n',
      );
      const ready = await Promise.race([pair.waitForPeer(), stopped]);
      if (ready === STOPPED) return EXIT.OK;
      io.err('reader connected; writing\n');
      path = pair.peerPath;
    }
    const run = startSerialSim({
      path,
      format: o.format,
      reader: o.reader,
      rate: o.rate,
      count: o.count,
      noise: o.noise,
      codes: o.codes,
      split: o.split,
      seed: o.seed,
      lineEnding: o.eol,
      baudRate: o.baudRate,
      onLine: o.quiet
        ? undefined
        : (line, kind) => {
            // A held tag's repeated frames are part of its read: the summary counts them.
            if (kind === 'repeat') return;
            io.out(
              kind === 'punch'
                ? `${line}\n`
                : kind === 'key'
                  ? `# keypad key: ${printable(line)}\n`
                  : `# noise: ${printable(line)}\n`,
            );
          },
    });
    let result;
    try {
      const first = await Promise.race([run.done, stopped]);
      result = first === STOPPED ? await run.stop() : first;
    } catch (e) {
      throw new ExitError(`writing to ${path} failed: ${e instanceof Error ? e.message : String(e)}`, EXIT.TEMPFAIL);
    }
    const keys =
      (result.keys > 0 ? `, ${result.keys} keypad keys` : '') +
      (result.repeats > 0 ? `, ${result.repeats} repeated frames of held tags` : '');
    io.err(
      `wrote ${result.punches} punch lines and ${result.noise} noise lines${keys} (${result.bytes} bytes) to ${path}\n`,
    );
    // Removing the pty at once would look like an unplug while the last lines are in flight.
    if (pair) await Promise.race([sleep(o.linger ?? 1000), stopped]);
    return EXIT.OK;
  } catch (e) {
    // A stop sent to the process group reaches socat too, maybe before us: a clean stop, not a
    // failure. The write may fail before socat's exit is seen: give that a moment to arrive.
    if (pair) await Promise.race([pair.exited, sleep(500)]);
    if (pair?.stoppedFromOutside()) {
      io.err(`socat was stopped by a signal along with the simulator; stopping\n`);
      return EXIT.OK;
    }
    throw e;
  } finally {
    await pair?.close();
  }
}

async function openPair(link: string): Promise<PtyPair> {
  try {
    return await createPtyPair(link, { waitForReader: true });
  } catch (e) {
    if (e instanceof SocatMissingError)
      throw new ExitError(`${e.message}; or write to a real port with --device PATH`, EXIT.FAILURE);
    throw new ExitError(`cannot create a pseudo-terminal at ${link}: ${(e as Error).message}`, EXIT.TEMPFAIL);
  }
}

function number(min: number, max: number, integer: boolean) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`expected ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`);
    }
    return n;
  };
}

function choice<T extends string>(allowed: readonly T[]) {
  return (v: string): T => {
    if (!allowed.includes(v as T)) throw new InvalidArgumentError(`expected one of ${allowed.join(', ')}`);
    return v as T;
  };
}

function codeList(v: string): string[] {
  const codes = v.split(',').map((c) => c.trim());
  if (codes.some((c) => !/^[\x21-\x7e]+$/.test(c) || c.includes(','))) {
    throw new InvalidArgumentError('expected codes separated by commas, e.g. 1001,1002,1003');
  }
  return codes;
}

export function registerSimSerial(program: Command): void {
  simCommand(program)
    .command('serial')
    .description(
      'simulate a serial time clock or badge reader: creates a pseudo-terminal (socat) or writes to a device',
    )
    .option('--link <path>', `device path to create (its far end is PATH.sim); default ${DEFAULT_SIM_LINK}`)
    .option('--device <path>', 'write to this existing serial device instead of creating one')
    .option(
      '--format <format>',
      'regex (CODE,YYYY-MM-DD HH:mm:ss lines) or card (card numbers)',
      choice(['regex', 'card'] as const),
      'regex',
    )
    .option(
      '--reader <reader>',
      "a card reader that does not print lines: rdm6300 (STX/ETX frames with checksum; --noise: bad checksums), rdm6300-held (each tag held on the antenna: its frame 20 times, 65 ms apart, lower-case hex), wiegand-keypad (a bare key byte, then the card line), wiegand-keypad-8bit (the key as an 8-bit burst byte), noise (bytes that never make a read), em18 (the RDM6300's 12 hex digits with no STX, ETX or line end: framing: length, frameBytes: 12) or 7941e (binary packets: STX, length, card type, serial bytes, BCC, ETX)",
      choice(SIM_READERS),
    )
    .option('--rate <n>', 'punch lines per second (0: as fast as possible)', number(0, 1_000_000, false), 1)
    .option('--count <n>', 'punch lines to write (default: until Ctrl-C)', number(1, Number.MAX_SAFE_INTEGER, true))
    .option('--noise <r>', 'chance 0..1 of a garbage line after each punch line', number(0, 1, false), 0)
    .option('--codes <a,b,c>', 'codes (regex) or card numbers (card) to cycle through', codeList)
    .option('--split', 'write each line in two pieces with a pause between')
    .option('--seed <n>', 'seed of the noise', number(0, 2 ** 32 - 1, true))
    .option('--eol <eol>', 'line ending: crlf, lf or cr', choice(['crlf', 'lf', 'cr'] as const), 'crlf')
    .option(
      '--baud-rate <n>',
      'baud rate for --device (a pseudo-terminal ignores it)',
      number(50, 4_000_000, true),
      9600,
    )
    .option('--quiet', 'do not print the lines written')
    .option(
      '--linger <ms>',
      'with --link: keep the device this long after the last line',
      number(0, 3_600_000, true),
      1000,
    )
    .action(action((o: SimSerialCliOptions) => withConsoleIo((io) => runSimSerial(o, io))));
}
