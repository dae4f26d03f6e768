import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../config/load.js';
import { checkTerminalConfig, terminalSecrets } from '../sources/build.js';
import { Journal, type JournalOptions } from '../journal/journal.js';
import { isBusyJournalError, JournalBusyError, JournalUnusableError } from '../journal/errors.js';
import { DEFAULT_CONFIG_PATH } from '../config/schema.js';
import type { AppContext } from '../context.js';
import { systemClock } from '../util/clock.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { createLogger } from '../util/logger.js';
import { Secrets } from '../util/secrets.js';
import { aborted, abortOnStopSignal } from '../util/signals.js';

/** Options every command inherits from the root program. */
export interface GlobalOptions {
  config: string;
  pretty?: boolean;
  logLevel?: string;
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
  const config = loadConfig(g.config ?? DEFAULT_CONFIG_PATH, checkTerminalConfig);
  // Comm keys are not registered: they are never put into a message, and the logger redacts them by key.
  const secrets = new Secrets();
  for (const s of terminalSecrets(config.terminals)) secrets.add(s, { runs: false });
  const logger = createLogger({
    level: g.logLevel ?? (opts.logToStderr ? 'warn' : config.log.level),
    pretty: g.pretty ?? opts.logToStderr,
    destination: opts.logToStderr ? { write: (s: string) => process.stderr.write(s) } : undefined,
  });
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
      const code = await fn(...args);
      process.exitCode = code ?? EXIT.OK;
    } catch (e) {
      reportError(e);
    }
  };
}

export function reportError(e: unknown): void {
  if (e instanceof ConfigError) {
    // One problem per line, each starting with `file:line:` as compilers do (editors jump to it).
    for (const p of e.problems) process.stderr.write(`${p}\n`);
    process.exitCode = e.exitCode;
  } else if (e instanceof ExitError) {
    process.stderr.write(`punchgate: ${e.message}\n`);
    process.exitCode = e.exitCode;
  } else if (e instanceof JournalUnusableError) {
    process.stderr.write(`punchgate: ${e.message}\n`);
    process.exitCode = EXIT.IOERR;
  } else if (e instanceof JournalBusyError || isBusyJournalError(e)) {
    const text =
      e instanceof JournalBusyError
        ? e.message
        : 'the journal is busy: another process holds its write lock; try again in a moment';
    process.stderr.write(`punchgate: ${text}\n`);
    process.exitCode = EXIT.TEMPFAIL;
  } else {
    process.stderr.write(`punchgate: ${e instanceof Error ? e.message : String(e)}\n`);
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
  fn: (ctx: AppContext, journal: Journal) => T | Promise<T>,
  opts: { readonly?: boolean } = {},
): Promise<T> {
  const ctx = loadContext(cmd, { logToStderr: true });
  const journal = openJournal(ctx, opts.readonly ? 'readonly' : 'shared');
  try {
    return await fn(ctx, journal);
  } catch (e) {
    if (isBusyJournalError(e) && !(e instanceof JournalBusyError)) throw new JournalBusyError(journal.path);
    throw e;
  } finally {
    journal.close();
  }
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
