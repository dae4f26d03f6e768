import type { Command } from 'commander';
import { PUNCH_STATES, type PunchState, type StoredPunch } from '../../journal/types.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { action, loadContext, openJournal } from '../common.js';

interface ListOptions { state?: string; terminal?: string; json?: boolean; limit?: string }

function parseState(s: string | undefined): PunchState | undefined {
  if (s === undefined) return undefined;
  if (!(PUNCH_STATES as readonly string[]).includes(s)) {
    throw new ExitError(`--state: must be one of ${PUNCH_STATES.join(', ')}`, EXIT.CONFIG);
  }
  return s as PunchState;
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

const CSV_COLUMNS: (keyof StoredPunch)[] = [
  'devicelogId', 'terminal', 'device', 'biometricCode', 'logTime', 'verifyType', 'punchState', 'state', 'attempts', 'lastMessage',
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
      action((opts: ListOptions, cmd: Command) => {
        const ctx = loadContext(cmd, { logToStderr: true });
        const journal = openJournal(ctx);
        try {
          const rows = journal.queries.list({ state: parseState(opts.state), terminal: opts.terminal, limit: Number(opts.limit) || 100 });
          for (const r of rows) {
            process.stdout.write(
              opts.json
                ? JSON.stringify(r) + '\n'
                : `${r.devicelogId.padEnd(14)} ${r.terminal.padEnd(12)} ${r.biometricCode.padEnd(10)} ${r.logTime}  ${r.state.padEnd(11)} ${r.attempts}  ${r.lastMessage ?? ''}\n`,
            );
          }
        } finally {
          journal.close();
        }
      }),
    );

  punches
    .command('retry')
    .description('send rejected (default) or dead punches again now, with a fresh retry schedule')
    .option('--state <state>', 'rejected or dead', 'rejected')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((opts: { state: string; terminal?: string }, cmd: Command) => {
        if (opts.state !== 'rejected' && opts.state !== 'dead') throw new ExitError('--state: must be rejected or dead', EXIT.CONFIG);
        const ctx = loadContext(cmd, { logToStderr: true });
        const journal = openJournal(ctx);
        try {
          const n = journal.queries.retry({ state: opts.state, terminal: opts.terminal });
          process.stdout.write(`${n} ${opts.state} punches queued again\n`);
        } finally {
          journal.close();
        }
      }),
    );

  punches
    .command('release')
    .description('release quarantined punches (implausible times) for delivery')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((opts: { terminal?: string }, cmd: Command) => {
        const ctx = loadContext(cmd, { logToStderr: true });
        const journal = openJournal(ctx);
        try {
          const n = journal.queries.releaseQuarantined({ terminal: opts.terminal });
          process.stdout.write(`${n} quarantined punches released\n`);
        } finally {
          journal.close();
        }
      }),
    );

  punches
    .command('export')
    .description('write punches as CSV to stdout')
    .option('--state <state>', 'only this state')
    .option('--terminal <name>', 'only this terminal')
    .action(
      action((opts: ListOptions, cmd: Command) => {
        const ctx = loadContext(cmd, { logToStderr: true });
        const journal = openJournal(ctx);
        try {
          process.stdout.write(CSV_COLUMNS.join(',') + '\n');
          for (const r of journal.queries.iterate({ state: parseState(opts.state), terminal: opts.terminal })) {
            process.stdout.write(CSV_COLUMNS.map((c) => csvCell(r[c])).join(',') + '\n');
          }
        } finally {
          journal.close();
        }
      }),
    );
}
