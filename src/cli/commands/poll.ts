import type { Command } from 'commander';
import type {
  BiotimeTerminalConfig,
  DahuaTerminalConfig,
  HikvisionTerminalConfig,
  ZkTerminalConfig,
} from '../../config/terminals.js';
import { BiotimePoller, type BioPollResult } from '../../sources/biotime/index.js';
import { DahuaPoller, type DahuaPollResult } from '../../sources/dahua/index.js';
import { sourceDepsFor } from '../../sources/deps.js';
import { configKeyIn } from '../../config/terminals.js';
import { HikvisionPoller, type HikPollResult } from '../../sources/hikvision/index.js';
import { causeAfterName } from '../../sources/poll-outcome.js';
import { pollTerminal } from '../../sources/zk/poll.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { escapeControls } from '../../util/terminal-text.js';
import { action, withJournal } from '../common.js';
import { terminalNamesHint } from '../terminal-names.js';

export function registerPoll(program: Command): void {
  program
    .command('poll')
    .description(
      'poll each ZK, Hikvision and Dahua terminal and BioTime server (or one) once, journal new punches, and exit (0 all succeeded, 75 otherwise)',
    )
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((opts: { terminal?: string }, cmd: Command) =>
        withJournal(cmd, async (ctx, journal) => {
          const pollable = ctx.config.terminals.filter(
            (t): t is ZkTerminalConfig | HikvisionTerminalConfig | DahuaTerminalConfig | BiotimeTerminalConfig =>
              (t.kind === 'zk' || t.kind === 'hikvision' || t.kind === 'dahua' || t.kind === 'biotime') && t.enabled,
          );
          const chosen = opts.terminal ? pollable.filter((t) => t.name === opts.terminal) : pollable;
          if (opts.terminal && chosen.length === 0) {
            const push = ctx.config.terminals.some((t) => t.name === opts.terminal && t.kind === 'adms');
            throw new ExitError(
              push
                ? `--terminal: ${opts.terminal} is a push terminal: it sends its punches itself (punchgate terminals command ${opts.terminal} LOG asks it to now)`
                : `--terminal: no enabled zk, hikvision or dahua terminal or biotime server named "${escapeControls(opts.terminal)}"${terminalNamesHint(opts.terminal, pollable, 'ones polled')}`,
              EXIT.CONFIG,
            );
          }
          const deps = {
            ...sourceDepsFor(journal, ctx.logger, ctx.clock),
            configKey: (n: string) => configKeyIn(ctx.config, n),
          };
          // Terminals are polled side by side: one slow terminal does not hold up the others.
          const hik = chosen.filter((t): t is HikvisionTerminalConfig => t.kind === 'hikvision');
          const hikResults = Promise.all(
            hik.map(async (t) => {
              const poller = new HikvisionPoller(t, deps);
              try {
                return await poller.poll();
              } finally {
                await poller.close();
              }
            }),
          );
          const dahua = chosen.filter((t): t is DahuaTerminalConfig => t.kind === 'dahua');
          const dahuaResults = Promise.all(
            dahua.map(async (t) => {
              const poller = new DahuaPoller(t, deps);
              try {
                return await poller.poll();
              } finally {
                poller.destroy();
              }
            }),
          );
          const bio = chosen.filter((t): t is BiotimeTerminalConfig => t.kind === 'biotime');
          const bioResults = Promise.all(
            bio.map(async (t) => {
              const poller = new BiotimePoller(t, deps);
              try {
                return await poller.poll();
              } finally {
                poller.destroy();
              }
            }),
          );
          const zk = chosen.filter((t): t is ZkTerminalConfig => t.kind === 'zk');
          const results = await Promise.all(zk.map((t) => pollTerminal(t, deps)));
          const scrub = (s: string) => ctx.secrets.scrub(s);
          const fixOf: FixOf = (terminal, error) => {
            const t = journal.terminals.get(terminal);
            return t?.lastError === error ? (t.lastErrorFix ?? undefined) : undefined;
          };
          for (const r of await hikResults) process.stdout.write(hikLine(r, scrub, fixOf));
          for (const r of await dahuaResults) process.stdout.write(dahuaLine(r, scrub, fixOf));
          for (const r of await bioResults) process.stdout.write(bioLine(r, scrub, fixOf));
          for (const r of results) {
            process.stdout.write(
              r.ok
                ? `${r.terminal}: ok, ${r.records} records (${r.added} new, ${r.duplicates} known${r.quarantined ? `, ${r.quarantined} quarantined` : ''}${r.badCodes ? `, ${r.badCodes} with unusable codes not journalled` : ''}), ${r.users} users, clock ${fmtSkew(r.skewSeconds)}${r.cleared ? ', log cleared' : ''}\n`
                : failedLine(r.terminal, r.error, scrub, fixOf),
            );
          }
          return results.every((r) => r.ok) &&
            (await hikResults).every((r) => r.ok) &&
            (await dahuaResults).every((r) => r.ok) &&
            (await bioResults).every((r) => r.ok)
            ? EXIT.OK
            : EXIT.TEMPFAIL;
        }),
      ),
    );
}

/**
 * `NAME: FAILED: cause — fix`: the fix the poll recorded with its failure in the terminal's record
 * (the status and check say the same), when the record holds this very failure.
 */
type FixOf = (terminal: string, error: string) => string | undefined;

function failedLine(terminal: string, error: string | undefined, scrub: (s: string) => string, fixOf: FixOf): string {
  const cause = error ?? 'unknown error';
  const fix = fixOf(terminal, cause);
  return `${terminal}: FAILED: ${escapeControls(scrub(causeAfterName(terminal, cause)))}${fix ? ` — ${escapeControls(scrub(fix))}` : ''}\n`;
}

export function fmtSkew(s: number | null): string {
  if (s === null) return 'unknown';
  return `${s >= 0 ? '+' : ''}${Math.round(s)} s`;
}

function hikLine(r: HikPollResult, scrub: (s: string) => string, fixOf: FixOf): string {
  const quarantined = r.quarantined ? `, ${r.quarantined} quarantined` : '';
  const mode = r.mode === 'time' ? ', read by time window (no serial filters)' : '';
  const read = `${r.rows} events read, ${r.passes} punches (${r.added} new, ${r.duplicates} known${quarantined})${mode}`;
  // Stopped at a bound: what it read is journalled, and said with the reason.
  if (r.stopped) return `${r.terminal}: STOPPED EARLY: ${escapeControls(scrub(r.stopped))}; ${read}\n`;
  if (!r.ok) return failedLine(r.terminal, r.error, scrub, fixOf);
  const people = `${r.users ?? '?'} users, clock ${fmtSkew(r.skewSeconds)}`;
  if (r.listeningOnly)
    return `${r.terminal}: ok, listening only (this firmware has no event search: its punches come by HTTP Listening alone), ${people}\n`;
  return `${r.terminal}: ok, ${read}, ${people}\n`;
}

function dahuaLine(r: DahuaPollResult, scrub: (s: string) => string, fixOf: FixOf): string {
  const quarantined = r.quarantined ? `, ${r.quarantined} quarantined` : '';
  const read = `${r.rows} records read in ${r.pages} pages (${r.added} new punches, ${r.duplicates} known${quarantined})`;
  if (r.stopped) return `${r.terminal}: STOPPED EARLY: ${escapeControls(scrub(r.stopped))}; ${read}\n`;
  if (!r.ok) return failedLine(r.terminal, r.error, scrub, fixOf);
  return `${r.terminal}: ok, ${read}, clock ${fmtSkew(r.skewSeconds)}\n`;
}

function bioLine(r: BioPollResult, scrub: (s: string) => string, fixOf: FixOf): string {
  const extra = `${r.quarantined ? `, ${r.quarantined} quarantined` : ''}${r.refused ? `, ${r.refused} refused` : ''}`;
  const mode = r.mode === 'time' ? ', read by time window (this server does not order by id)' : '';
  const read = `${r.rows} transactions read (${r.added} new, ${r.duplicates} known${extra}) in ${r.pages} ${r.pages === 1 ? 'page' : 'pages'}${mode}`;
  if (r.stopped) return `${r.terminal}: STOPPED EARLY: ${escapeControls(scrub(r.stopped))}; ${read}\n`;
  if (!r.ok) return failedLine(r.terminal, r.error, scrub, fixOf);
  return `${r.terminal}: ok, ${read}\n`;
}
