import type { Command } from 'commander';
import type { StoredPunch } from '../../journal/types.js';
import { directionShower } from '../../punch/direction.js';
import { keptRules } from '../../punch/kept-direction.js';
import { sinksOf } from '../../config/sinks.js';
import { csvRecord } from '../../util/csv.js';
import { escapeControls } from '../../util/terminal-text.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { action, withJournal } from '../common.js';
import { checkTerminalFilter } from '../punch-terminal-filter.js';
import { addListOptions, collectCodes, listPunches, logTime, parseState, type ListOptions } from './punches-list.js';
import { withHeldReasons } from './punches-held.js';
import { listSinkPunches, sinkQueueOf } from './punches-sink.js';
import { deliveredCardLines, remapCards } from './remap-cards.js';

/** "1 punch", "2 punches": the counts these commands print ("1 rejected punches queued again" read wrong). */
const punchWord = (n: number) => (n === 1 ? 'punch' : 'punches');

interface SubOptions {
  state?: string;
  terminal?: string;
  code?: string[];
  sink?: string;
  older?: boolean;
  since?: string;
  until?: string;
}

/**
 * A subcommand's options merged with those of `punches`: commander hands `--state` and
 * `--terminal` to the parent when both define them, wherever they stand on the line.
 */
function subOptions(cmd: Command): SubOptions {
  return cmd.optsWithGlobals<SubOptions>();
}

/** A journal value as a CSV cell: text stays text (made safe for spreadsheets), numbers stay numbers. */
function cellOf(v: StoredPunch[keyof StoredPunch]): string | number | null {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

/** Writes to stdout, waiting while the pipe is full: a large export never piles up in memory. */
function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(text)) resolve();
    else {
      const done = (err?: Error) => {
        process.stdout.off('drain', done);
        process.stdout.off('error', done);
        if (err) reject(err);
        else resolve();
      };
      process.stdout.once('drain', done);
      process.stdout.once('error', done);
    }
  });
}

const CSV_COLUMNS: (keyof StoredPunch)[] = [
  'devicelogId',
  'terminal',
  'device',
  'biometricCode',
  'logTime',
  'verifyType',
  'punchState',
  'state',
  'attempts',
  'lastMessage',
];

/**
 * After the journal's columns: the state in words and the direction sinks are given (by the
 * terminal's setting in the config at hand; empty: none). Last, so that scripts reading the
 * columns above by position keep working.
 */
const DIRECTION_COLUMNS = ['stateName', 'direction'] as const;

export function registerPunches(program: Command): void {
  const punches = addListOptions(
    program
      .command('punches')
      .description(
        'list punches, newest first (by state, terminal, code, dates; --history: the HRMS answers); retry, release or export them',
      ),
  ).action(
    action((opts: ListOptions, cmd: Command) =>
      withJournal(
        cmd,
        (ctx, journal) => {
          checkTerminalFilter(opts.terminal, ctx.config.terminals, journal);
          const q = opts.sink === undefined ? undefined : sinkQueueOf(ctx.config, journal, opts.sink);
          const sinks = sinksOf(ctx.config);
          if (q) {
            const sink = sinks.find((s) => s.name === q.sink);
            listSinkPunches(
              q,
              opts,
              (l) => process.stdout.write(`${l}\n`),
              (rows) => withHeldReasons(rows, sink, q),
            );
          } else
            listPunches(
              journal,
              opts,
              undefined,
              undefined,
              ctx.config.terminals,
              keptRules(journal.terminalDirections()),
              (rows) => withHeldReasons(rows, sinks[0], journal),
            );
        },
        { readonly: true },
      ),
    ),
  );

  punches
    .command('retry')
    .description('send rejected (default) or dead punches again now, with a fresh retry schedule')
    .option('--state <state>', 'rejected (default) or dead')
    .option('--terminal <name>', 'only this terminal')
    .option('--code <code>', 'only this biometric code (repeat it, or 1042,1043, for several)', collectCodes)
    .option('--sink <name>', 'the punches of this sink (default: the first sink)')
    .option('--older', 'with --sink: also queue the punches journalled before the sink was added')
    .action(
      action((_opts: unknown, cmd: Command) => {
        const opts = subOptions(cmd);
        const state = opts.state ?? 'rejected';
        if (state !== 'rejected' && state !== 'dead')
          throw new ExitError('--state: must be rejected or dead', EXIT.CONFIG);
        return withJournal(cmd, async (ctx, journal) => {
          checkTerminalFilter(opts.terminal, ctx.config.terminals, journal);
          const q = opts.sink === undefined ? undefined : sinkQueueOf(ctx.config, journal, opts.sink);
          if (q) {
            if (opts.code?.length) throw new ExitError('--code is not available with --sink', EXIT.CONFIG);
            const { again, older } = q.retry({
              state,
              ...(opts.terminal ? { terminal: opts.terminal } : {}),
              all: opts.older ?? false,
            });
            // Older punches were never queued for this sink: "queued again" would be untrue of them.
            process.stdout.write(
              opts.older
                ? `${again} ${state} ${punchWord(again)} of sink ${q.sink} queued again; ${older} ${punchWord(older)} journalled before sink ${q.sink} was added queued for it\n`
                : `${again} ${punchWord(again)} of sink ${q.sink} queued again\n`,
            );
            return;
          }
          if (opts.older) throw new ExitError('--older goes with --sink NAME', EXIT.CONFIG);
          // Cards added to a code map since their punches were refused: sent under the mapped code now.
          for (const line of remapCards(ctx.config, journal, opts.terminal)) process.stdout.write(`${line}\n`);
          // A chunk of rows per transaction: the daemon keeps writing meanwhile.
          const n = await journal.queries.retry({ state, terminal: opts.terminal, codes: opts.code });
          const of = [
            opts.terminal ? `of terminal ${opts.terminal}` : '',
            opts.code?.length ? `with code ${opts.code.join(', ')}` : '',
          ].filter(Boolean);
          process.stdout.write(
            `${n} ${state} ${punchWord(n)} ${of.length > 0 ? `${of.join(' ')} ` : ''}queued again\n`,
          );
          for (const line of deliveredCardLines(journal, opts.terminal, sinksOf(ctx.config)[0]?.kind))
            process.stdout.write(`${line}\n`);
        });
      }),
    );

  punches
    .command('release')
    .description('release quarantined punches (implausible times) for delivery')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((_opts: unknown, cmd: Command) =>
        withJournal(cmd, async (ctx, journal) => {
          const terminal = subOptions(cmd).terminal;
          checkTerminalFilter(terminal, ctx.config.terminals, journal);
          const n = await journal.queries.releaseQuarantined({ terminal });
          process.stdout.write(`${n} quarantined ${punchWord(n)} released\n`);
          const left = journal.queries.quarantinedWithoutTime({ terminal });
          if (left.count > 0)
            process.stdout.write(
              left.count === 1
                ? `1 kept quarantined: its time does not exist ("${escapeControls(left.example ?? '')}"), so no HRMS can take it; punchgate punches --state quarantined lists it\n`
                : `${left.count} kept quarantined: their time does not exist (such as "${escapeControls(left.example ?? '')}"), so no HRMS can take them; punchgate punches --state quarantined lists them\n`,
            );
        }),
      ),
    );

  punches
    .command('export')
    .description(
      'write punches as CSV to stdout (RFC 4180; text cells a spreadsheet would run as a formula start with an apostrophe)',
    )
    .option('--state <state>', 'only this state')
    .option('--terminal <name>', 'only this terminal')
    .option('--code <code>', 'only this biometric code (repeat it, or 1042,1043, for several)', collectCodes)
    .option('--since <date>', 'log times from this day or time on (2026-11-22, or 2026-11-22 08:00)', logTime('since'))
    .option('--until <date>', 'log times up to the end of this day or time', logTime('until'))
    .action(
      action((_opts: unknown, cmd: Command) =>
        withJournal(
          cmd,
          async (ctx, journal) => {
            const opts = subOptions(cmd);
            const show = directionShower(ctx.config.terminals, keptRules(journal.terminalDirections()));
            // Read before the header: a wrong --state must not leave a header-only file behind.
            const state = parseState(opts.state);
            checkTerminalFilter(opts.terminal, ctx.config.terminals, journal);
            await write(csvRecord([...CSV_COLUMNS, ...DIRECTION_COLUMNS]));
            const filter = {
              state,
              terminal: opts.terminal,
              ...(opts.code ? { codes: opts.code } : {}),
              ...(opts.since ? { since: opts.since } : {}),
              ...(opts.until ? { until: opts.until } : {}),
            };
            for (const r of journal.queries.iterate(filter)) {
              const d = show(r);
              await write(csvRecord([...CSV_COLUMNS.map((c) => cellOf(r[c])), d.stateName || null, d.direction]));
            }
          },
          { readonly: true },
        ),
      ),
    );
}
