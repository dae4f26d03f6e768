import type { Command } from 'commander';
import { PUNCH_STATES, type PunchState, type StoredPunch } from '../../journal/types.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { action, withJournal } from '../common.js';

interface ListOptions {
  state?: string;
  terminal?: string;
  json?: boolean;
  limit?: string;
}

function parseState(s: string | undefined): PunchState | undefined {
  if (s === undefined) return undefined;
  if (!(PUNCH_STATES as readonly string[]).includes(s)) {
    throw new ExitError(`--state: must be one of ${PUNCH_STATES.join(', ')}`, EXIT.CONFIG);
  }
  return s as PunchState;
}

/**
 * A subcommand's options merged with those of `punches`: commander hands `--state` and
 * `--terminal` to the parent when both define them, wherever they stand on the line.
 */
function subOptions(cmd: Command): ListOptions {
  return cmd.optsWithGlobals<ListOptions>();
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

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

export function registerPunches(program: Command): void {
  const punches = program
    .command('punches')
    .description('list punches; retry, release or export them')
    .option('--state <state>', `only this state (${PUNCH_STATES.join(', ')})`)
    .option('--terminal <name>', 'only this terminal')
    .option('--limit <n>', 'at most this many', '100')
    .option('--json', 'JSON lines')
    .action(
      action((opts: ListOptions, cmd: Command) =>
        withJournal(
          cmd,
          (ctx, journal) => {
            const rows = journal.queries.list({
              state: parseState(opts.state),
              terminal: opts.terminal,
              limit: Number(opts.limit) || 100,
            });
            for (const r of rows) {
              process.stdout.write(
                opts.json
                  ? JSON.stringify(r) + '\n'
                  : `${r.devicelogId.padEnd(14)} ${r.terminal.padEnd(12)} ${r.biometricCode.padEnd(10)} ${r.logTime}  ${r.state.padEnd(11)} ${r.attempts}  ${r.lastMessage ?? ''}\n`,
              );
            }
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
    .action(
      action((_opts: unknown, cmd: Command) => {
        const opts = subOptions(cmd);
        const state = opts.state ?? 'rejected';
        if (state !== 'rejected' && state !== 'dead')
          throw new ExitError('--state: must be rejected or dead', EXIT.CONFIG);
        return withJournal(cmd, async (_ctx, journal) => {
          // A chunk of rows per transaction: the daemon keeps writing meanwhile.
          const n = await journal.queries.retry({ state, terminal: opts.terminal });
          process.stdout.write(`${n} ${state} punches queued again\n`);
        });
      }),
    );

  punches
    .command('release')
    .description('release quarantined punches (implausible times) for delivery')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((_opts: unknown, cmd: Command) =>
        withJournal(cmd, async (_ctx, journal) => {
          const n = await journal.queries.releaseQuarantined({ terminal: subOptions(cmd).terminal });
          process.stdout.write(`${n} quarantined punches released\n`);
        }),
      ),
    );

  punches
    .command('export')
    .description('write punches as CSV to stdout')
    .option('--state <state>', 'only this state')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((_opts: unknown, cmd: Command) =>
        withJournal(
          cmd,
          (_ctx, journal) => {
            const opts = subOptions(cmd);
            process.stdout.write(CSV_COLUMNS.join(',') + '\n');
            for (const r of journal.queries.iterate({ state: parseState(opts.state), terminal: opts.terminal })) {
              process.stdout.write(CSV_COLUMNS.map((c) => csvCell(r[c])).join(',') + '\n');
            }
          },
          { readonly: true },
        ),
      ),
    );
}
