import type { Command } from 'commander';
import type { AppContext } from '../../context.js';
import { Daemon } from '../../daemon/daemon.js';
import { NO_TOKEN } from '../../delivery/health.js';
import { TokenSource, TokenUnavailableError } from '../../hrms/token.js';
import { createNotifier } from '../../daemon/sd-notify.js';
import { JournalLockedError } from '../../journal/lock.js';
import {
  describeJournalFailure,
  isBusyJournalError,
  isFatalJournalError,
  JournalBusyError,
  JournalUnusableError,
} from '../../journal/errors.js';
import { containerZoneWarning } from '../../util/container-zone.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { handleSignals } from '../../util/signals.js';
import { action, commandLogFormat, contextWith, globalOptions } from '../common.js';
import { ConfigWatch } from '../../daemon/config-watch.js';
import { fatalLine, runExitCode } from '../../daemon/fatal-line.js';
import { checkTerminalConfig } from '../../sources/build.js';
import { systemClock } from '../../util/clock.js';
import { createLogger } from '../../util/logger.js';
import { DEFAULT_CONFIG_PATH } from '../../config/schema.js';
import { ConfigError } from '../../config/load.js';
import { clearLastStop, recordLastStop } from '../../status/last-stop.js';
import { markStatusLog } from '../../status/last-stop-mark.js';

/** A start that failed with an error the CLI reports (reportError): its exit code and words, for the record. */
function rememberThrown(e: unknown, remember: (exitCode: number, reason: string) => void): void {
  if (e instanceof ConfigError) remember(e.exitCode, e.problems.join('; '));
  else if (e instanceof ExitError) remember(e.exitCode, e.message);
  else if (e instanceof JournalUnusableError) remember(runExitCode(e), fatalLine(e).replace(/^fatal: /, ''));
  else if (e instanceof JournalBusyError || isBusyJournalError(e))
    remember(
      EXIT.TEMPFAIL,
      e instanceof JournalBusyError ? e.message : 'the journal is busy: another process holds its write lock',
    );
  else remember(EXIT.FAILURE, e instanceof Error ? e.message : String(e));
}

/** The daemon's own stop bound: shorter than the unit's TimeoutStopSec (30 s). */
export const STOP_BOUND_MS = 20_000;

/**
 * At start, say plainly when no token can be read (none configured, an empty or two-line file):
 * the daemon still runs and keeps every punch, and delivery begins once a token is in place.
 */
function sayWhenNoToken(ctx: AppContext): void {
  // A config with only sinks: (Frappe, Odoo) has no hrms: block and no token to read.
  if (!ctx.config.hrms) return;
  try {
    new TokenSource({ tokenFile: ctx.config.hrms.tokenFile, secrets: ctx.secrets }).get();
  } catch (e) {
    if (!(e instanceof TokenUnavailableError)) throw e;
    ctx.logger.error(
      `${NO_TOKEN}: ${e.message}. punchgate runs and keeps every punch; delivery starts once a token is in place`,
    );
  }
}

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('run the gateway: poll terminals, journal punches, deliver them to the HRMS (systemd service)')
    .action(
      action(async (_opts: unknown, cmd: Command) => {
        const g = globalOptions(cmd);
        const configPath = g.config ?? DEFAULT_CONFIG_PATH;
        // JSON for machines and containers; under systemd, lines with their priority (journalctl -p).
        const logger = createLogger({ level: g.logLevel ?? 'info', format: commandLogFormat(g, 1) });
        // The config file, or the last one that loaded when the file is broken (said loudly, and an alert).
        const started = ConfigWatch.startWith(configPath, {
          clock: systemClock,
          logger,
          checkTerminal: checkTerminalConfig,
        });
        if (!g.logLevel) logger.level = started.config.log.level;
        const ctx = contextWith(started.config, logger);
        sayWhenNoToken(ctx);
        const zone = containerZoneWarning(ctx.config.terminals);
        if (zone) logger.warn(`${zone.detail}: ${zone.fix}`);
        const notifier = createNotifier(process.env, logger);
        let daemon: Daemon;
        // Why it stopped, kept for `punchgate status` until a later start succeeds (status/last-stop.ts).
        // The status log's files are marked too: they went on saying it ran (status/last-stop-mark.ts).
        const remember = (exitCode: number, reason: string) => {
          const stop = { at: new Date(ctx.clock.now()).toISOString(), exitCode, reason: ctx.secrets.scrub(reason) };
          recordLastStop(ctx.config.journal.path, stop);
          markStatusLog(ctx.config.status.path, stop);
        };
        const fatal = (err: unknown): never => {
          const e = describeJournalFailure(ctx.config.journal.path, err);
          const line = fatalLine(e);
          logger.fatal({ code: e.code }, line);
          remember(runExitCode(e), line.replace(/^fatal: /, ''));
          process.exit(runExitCode(e));
        };
        const crashed = (e: unknown): never => {
          if (isFatalJournalError(e)) fatal(e);
          logger.fatal({ err: e }, 'unexpected error; exiting so that systemd restarts punchgate');
          remember(
            70,
            `unexpected error: ${e instanceof Error ? e.message : String(e)}; exiting so that systemd restarts punchgate`,
          );
          process.exit(70);
        };
        try {
          daemon = new Daemon(ctx, {
            configPath,
            configWatch: started.watch,
            notifier,
            onFatal: fatal,
          });
        } catch (e) {
          // Another punchgate run holds the journal: that one runs, and this is no stop of it.
          if (e instanceof JournalLockedError) throw new ExitError(e.message, EXIT.TEMPFAIL);
          rememberThrown(e, remember);
          throw e;
        }
        // A journal that cannot be written, met anywhere (the start's first write, a timer's), is
        // said as every such failure is: one line with the path and the fix, exit 74. Thrown raw,
        // it ended the process with exit 1 and SQLite's bare "database or disk is full".
        process.on('uncaughtException', crashed);
        process.on('unhandledRejection', crashed);

        handleSignals({
          stop: (signal, count) => {
            if (count > 1) {
              // Every journal write is a synchronous transaction: exiting now loses nothing;
              // punches of an in-flight batch go back to pending at the next start.
              logger.warn({ signal }, 'second signal: exiting at once');
              process.exit(EXIT.OK);
            }
            logger.info({ signal }, 'stopping');
            const bound = setTimeout(() => {
              logger.warn({ boundMs: STOP_BOUND_MS }, 'stop took too long: exiting anyway (nothing is lost)');
              process.exit(EXIT.OK);
            }, STOP_BOUND_MS);
            bound.unref();
            daemon
              .stop()
              .then(() => {
                notifier.close();
                process.exit(EXIT.OK);
              })
              .catch((e) => fatal(e));
          },
          reload: () => {
            logger.info('SIGHUP: reloading the config');
            void daemon.reload();
          },
          unused: (signal) =>
            logger.warn(
              { signal },
              `${signal}: punchgate does nothing on this signal and keeps running (systemctl reload punchgate reloads the config, systemctl stop punchgate stops it)`,
            ),
        });
        try {
          await daemon.start();
        } catch (e) {
          if (isFatalJournalError(e)) fatal(e);
          rememberThrown(e, remember);
          throw e;
        }
        clearLastStop(ctx.config.journal.path);
      }),
    );
}
