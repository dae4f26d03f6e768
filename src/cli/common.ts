import type { Command } from 'commander';
import { refuseGroupOptions } from './parent-options.js';
import { statSync } from 'node:fs';
import { ConfigError, loadConfig } from '../config/load.js';
import { findLastGood, type LastGood } from '../config/last-good.js';
import type { ConfigStatus } from '../status/types.js';
import { localTime } from '../util/local-time.js';
import { checkTerminalConfig, terminalSecrets } from '../sources/build.js';
import { Journal, type JournalOptions } from '../journal/journal.js';
import { journalPlaceProblem } from '../daemon/journal-place.js';
import {
  describeJournalFailure,
  isBusyJournalError,
  isFatalJournalError,
  JournalBusyError,
  JournalUnusableError,
  oneShotMessage,
} from '../journal/errors.js';
import { DEFAULT_CONFIG_PATH, type Config } from '../config/schema.js';
import type { AppContext } from '../context.js';
import { systemClock } from '../util/clock.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { fatalLine, runExitCode } from '../daemon/fatal-line.js';
import { createLogger, logFormatFor, type LogFormat, type Logger } from '../util/logger.js';
import { isJournalStream, PRIORITY, withPriority } from '../util/journald.js';
import { Secrets } from '../util/secrets.js';
import { escapeControls } from '../util/terminal-text.js';
import { aborted, abortOnStopSignal } from '../util/signals.js';
import { firstFew } from '../util/first-few.js';

/** Options every command inherits from the root program. */
export interface GlobalOptions {
  config: string;
  pretty?: boolean;
  logLevel?: string;
  logFormat?: string;
}

export function globalOptions(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

/**
 * Loads and validates the config and builds the context for a command.
 * One-shot commands log warnings and errors to stderr so their stdout stays clean output.
 */
export function loadContext(cmd: Command, opts: { logToStderr?: boolean } = {}): AppContext {
  const g = globalOptions(cmd);
  return contextFor(cmd, loadConfig(g.config ?? DEFAULT_CONFIG_PATH, checkTerminalConfig), opts);
}

/**
 * For a command that only reads (`status`, `terminals`, `punches`...): the config, or, when the
 * file does not load, the last good copy punchgate run keeps (config/last-good.ts), said in one
 * line on stderr, so that an admin can look at the running site while the file is broken.
 * Without a copy, the file's ConfigError (exit 78) as for any command.
 */
export function loadReadingContext(cmd: Command): { ctx: AppContext; fallback?: ConfigStatus } {
  const g = globalOptions(cmd);
  const file = g.config ?? DEFAULT_CONFIG_PATH;
  try {
    return { ctx: contextFor(cmd, loadConfig(file, checkTerminalConfig), { logToStderr: true }) };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    let copy: LastGood | undefined;
    try {
      copy = findLastGood(file, checkTerminalConfig);
    } catch {
      copy = undefined;
    }
    if (!copy) throw e;
    process.stderr.write(
      `punchgate: ${e.problems.length > 0 ? firstFew(e.problems, 1) : file} -- shown with the last good config (loaded ${localTime(copy.loadedAt)}, kept at ${copy.path})\n`,
    );
    const failure = { problems: e.problems, since: new Date(changedAt(file)).toISOString() };
    return {
      ctx: contextFor(cmd, copy.config, { logToStderr: true }),
      fallback: {
        file: copy.source,
        runningOn: 'last-good',
        loadedAt: new Date(copy.loadedAt).toISOString(),
        lastGood: copy.path,
        failure,
        secretsMissing: copy.secretsMissing,
      },
    };
  }
}

function changedAt(file: string): number {
  try {
    return Math.min(Date.now(), statSync(file).mtimeMs);
  } catch {
    return Date.now();
  }
}

/** The context of a command for a config already loaded (`punchgate run` loads its own: ConfigWatch). */
export function contextFor(cmd: Command, config: Config, opts: { logToStderr?: boolean } = {}): AppContext {
  const g = globalOptions(cmd);
  const logger = createLogger({
    level: g.logLevel ?? (opts.logToStderr ? 'warn' : config.log.level),
    format: commandLogFormat(g, opts.logToStderr ? 2 : 1),
    destination: opts.logToStderr ? { write: (s: string) => process.stderr.write(s) } : undefined,
  });
  return contextWith(config, logger);
}

/**
 * The log format of a command whose log goes to `fd`: as asked, else for systemd's journal when
 * that fd is its stream; else JSON on stdout (the daemon, for machines and containers) and
 * readable lines on stderr (one-shot commands, for a person).
 */
export function commandLogFormat(g: GlobalOptions, fd: 1 | 2): LogFormat {
  if (g.logFormat !== undefined && !['json', 'text', 'journal'].includes(g.logFormat))
    throw new ExitError(`--log-format: must be json, text or journal (not "${g.logFormat}")`, EXIT.CONFIG);
  const format = logFormatFor(fd, { format: g.logFormat, pretty: g.pretty });
  return format === 'json' && fd === 2 && g.logFormat === undefined ? 'text' : format;
}

/** The context for a config and a logger made already. */
export function contextWith(config: Config, logger: Logger): AppContext {
  // Comm keys are not registered: they are never put into a message, and the logger redacts them by key.
  const secrets = new Secrets();
  for (const s of terminalSecrets(config.terminals)) secrets.add(s, { runs: false });
  return { config, logger, clock: systemClock, secrets };
}

/**
 * A listing piped into `head` or `less` that stops reading: stdout's next write fails with EPIPE.
 * The reader has what it wanted, so end quietly with 0, as `head` expects, instead of Node's
 * unhandled 'error' event (a stack trace and exit 1). stderr going away is ignored the same way.
 * The daemon's log is not process.stdout (pino writes to fd 1 itself), so `run` is not affected.
 */
export function endQuietlyOnBrokenPipe(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.OK);
    throw e;
  });
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

/** Runs a command body and turns its outcome into the process exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void> | number | void) {
  return async (...args: A): Promise<void> => {
    try {
      withOptionsGivenToParents(args);
      // A group's option that the subcommand does not take is refused, never ignored.
      const cmd = args.at(-1) as Command | undefined;
      if (cmd && typeof cmd.getOptionValueSource === 'function') refuseGroupOptions(cmd);
      const code = await fn(...args);
      process.exitCode = code ?? EXIT.OK;
    } catch (e) {
      const cmd = args.at(-1) as Command | undefined;
      reportError(e, typeof cmd?.name === 'function' ? cmd.name() : undefined);
    }
  };
}

/**
 * Commander hands an option to the parent command when both define it (`terminals --json` and
 * `terminals commands NAME --json`), wherever it stands on the line, and the subcommand then sees
 * its own default. So every action gets its options with what was given on the line to a parent
 * under the same name, unless the subcommand itself was given it: `--json` after a subcommand is
 * that subcommand's, for every command at once (it printed a table before).
 */
function withOptionsGivenToParents(args: unknown[]): void {
  const cmd = args.at(-1) as Command | undefined;
  const opts = args.at(-2) as Record<string, unknown> | undefined;
  if (!cmd || typeof cmd.optsWithGlobals !== 'function' || !opts || typeof opts !== 'object') return;
  for (const o of cmd.options) {
    const key = o.attributeName();
    if (cmd.getOptionValueSource(key) === 'cli') continue;
    for (let p = cmd.parent; p; p = p.parent) {
      if (p.getOptionValueSource(key) !== 'cli' || !p.options.some((po) => po.attributeName() === key)) continue;
      opts[key] = p.getOptionValue(key);
      break;
    }
  }
}

export function reportError(e: unknown, command?: string): void {
  // Under systemd each line carries its priority, so that `journalctl -p err` shows why it stopped.
  // A message quotes what terminals and servers said: each of its lines shown as the terminal does
  // (escapeControls), whatever the code that built it did, its own line breaks kept.
  const write = (message: string) => {
    const text = message.split('\n').map(escapeControls).join('\n');
    process.stderr.write(isJournalStream(2) ? withPriority(PRIORITY.err, text) : `${text}\n`);
  };
  if (e instanceof ConfigError) {
    // One problem per line, each starting with `file:line:` as compilers do (editors jump to it).
    for (const p of e.problems) write(p);
    process.exitCode = e.exitCode;
  } else if (e instanceof ExitError) {
    write(`punchgate: ${e.message}`);
    process.exitCode = e.exitCode;
  } else if (e instanceof JournalUnusableError) {
    // Only the daemon is started again by systemd; any other command is run again by the admin.
    // The daemon's line says whether systemd starts it again (runExitCode: 75 restarted, 74 not).
    write(`punchgate: ${command !== 'run' ? oneShotMessage(e) : fatalLine(e).replace(/^fatal: /, '')}`);
    process.exitCode = command === 'run' ? runExitCode(e) : EXIT.IOERR;
  } else if (e instanceof JournalBusyError || isBusyJournalError(e)) {
    const text =
      e instanceof JournalBusyError
        ? e.message
        : 'the journal is busy: another process holds its write lock; try again in a moment';
    write(`punchgate: ${text}`);
    process.exitCode = EXIT.TEMPFAIL;
  } else {
    write(`punchgate: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = EXIT.FAILURE;
  }
}

/**
 * Opens the configured journal for a command: 'shared' reads and writes beside the daemon,
 * 'readonly' only reads; neither creates nor upgrades a journal (only `punchgate run` does).
 */
export function openJournal(
  ctx: AppContext,
  mode: 'owner' | 'shared' | 'readonly' = 'shared',
  extra: Partial<JournalOptions> = {},
): Journal {
  const { config } = ctx;
  // A disk that did not come up, a journal that ran here and is gone: said as run says it, never
  // "run creates it" (nor the journal made on the file system below an empty mount point read).
  const place = journalPlaceProblem(config.journal.path, config.status.path);
  if (place) throw place;
  return Journal.open({
    path: config.journal.path,
    site: config.site,
    clock: ctx.clock,
    mode,
    scrub: (text) => ctx.secrets.scrub(text),
    logger: ctx.logger,
    retentionDays: config.journal.retentionDays,
    futureToleranceMinutes: config.journal.futureToleranceMinutes,
    pastToleranceHours: config.journal.pastToleranceHours,
    rejectedRetry: config.delivery.rejectedRetry,
    deadAfterAttempts: config.delivery.deadAfterAttempts,
    deadAfterDays: config.delivery.deadAfterDays,
    ...extra,
  });
}

/**
 * Loads the context (logging to stderr), opens the journal, runs `fn`, and always closes the
 * journal. A journal that stays busy ends the command with exit 75 and its path.
 */
export async function withJournal<T>(
  cmd: Command,
  fn: (ctx: AppContext, journal: Journal, fallback?: ConfigStatus) => T | Promise<T>,
  opts: { readonly?: boolean } = {},
): Promise<T> {
  // A command that only reads works from the last good config while the file is broken.
  const { ctx, fallback } = opts.readonly
    ? loadReadingContext(cmd)
    : { ctx: loadContext(cmd, { logToStderr: true }), fallback: undefined };
  const journal = openJournal(ctx, opts.readonly ? 'readonly' : 'shared');
  try {
    return await fn(ctx, journal, fallback);
  } catch (e) {
    throw journalErrorOf(journal.path, e);
  } finally {
    journal.close();
  }
}

/**
 * What a command says about an error met while it used the journal at `path`: a journal kept busy
 * is exit 75 with the path; one that cannot be used any more (damaged, the disk full, not
 * writable) is exit 74 with the path and the fix, never SQLite's bare words and exit 1.
 */
export function journalErrorOf(path: string, e: unknown): unknown {
  if (e instanceof JournalUnusableError || e instanceof JournalBusyError) return e;
  if (isBusyJournalError(e)) return new JournalBusyError(path);
  if (isFatalJournalError(e)) return describeJournalFailure(path, e);
  return e;
}

/** What a long-running console command writes to and when it should stop. */
export interface ConsoleIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Resolves on the first SIGINT or SIGTERM. */
  until: Promise<void>;
}

/** Runs `fn` with stdout, stderr and a stop signal, and lets go of the signal handlers afterwards. */
export async function withConsoleIo<T>(fn: (io: ConsoleIo) => Promise<T>): Promise<T> {
  const stop = abortOnStopSignal();
  try {
    return await fn({
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
      until: aborted(stop.signal),
    });
  } finally {
    stop.dispose();
  }
}

/** The `sim` parent command, created once by the command index. */
export function simCommand(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'sim') ??
    program.command('sim').description('simulators for rehearsal and tests')
  );
}
