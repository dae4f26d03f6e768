import type { Command } from 'commander';
import type { ZkTerminalConfig } from '../../config/terminals.js';
import { sourceDepsFor } from '../../sources/deps.js';
import { pollTerminal } from '../../sources/zk/poll.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { escapeControls } from '../../util/terminal-text.js';
import { action, withJournal } from '../common.js';

export function registerPoll(program: Command): void {
  program
    .command('poll')
    .description('poll each ZK terminal (or one) once, journal new punches, and exit (0 all succeeded, 75 otherwise)')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((opts: { terminal?: string }, cmd: Command) =>
        withJournal(cmd, async (ctx, journal) => {
          const zk = ctx.config.terminals.filter((t): t is ZkTerminalConfig => t.kind === 'zk' && t.enabled);
          const chosen = opts.terminal ? zk.filter((t) => t.name === opts.terminal) : zk;
          if (opts.terminal && chosen.length === 0) {
            const push = ctx.config.terminals.some((t) => t.name === opts.terminal && t.kind === 'adms');
            throw new ExitError(
              push
                ? `--terminal: ${opts.terminal} is a push terminal: it sends its punches itself (punchgate terminals command ${opts.terminal} LOG asks it to now)`
                : `--terminal: no enabled zk terminal named "${opts.terminal}"`,
              EXIT.CONFIG,
            );
          }
          const deps = sourceDepsFor(journal, ctx.logger, ctx.clock);
          // Terminals are polled side by side: one slow terminal does not hold up the others.
          const results = await Promise.all(chosen.map((t) => pollTerminal(t, deps)));
          for (const r of results) {
            process.stdout.write(
              r.ok
                ? `${r.terminal}: ok, ${r.records} records (${r.added} new, ${r.duplicates} known${r.quarantined ? `, ${r.quarantined} quarantined` : ''}${r.badCodes ? `, ${r.badCodes} with unusable codes not journalled` : ''}), ${r.users} users, clock ${fmtSkew(r.skewSeconds)}${r.cleared ? ', log cleared' : ''}\n`
                : `${r.terminal}: FAILED: ${escapeControls(ctx.secrets.scrub(r.error ?? 'unknown error'))}\n`,
            );
          }
          return results.every((r) => r.ok) ? EXIT.OK : EXIT.TEMPFAIL;
        }),
      ),
    );
}

export function fmtSkew(s: number | null): string {
  if (s === null) return 'unknown';
  return `${s >= 0 ? '+' : ''}${Math.round(s)} s`;
}
