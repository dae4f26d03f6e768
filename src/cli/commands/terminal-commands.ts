import { printable, safeJson } from '../../util/terminal-text.js';
import { textTable } from '../../util/text-table.js';
import { InvalidArgumentError, type Command } from 'commander';
import type { AdmsTerminalConfig } from '../../config/terminals.js';
import type { AppContext } from '../../context.js';
import { PushStore } from '../../journal/push-store.js';
import type { Journal } from '../../journal/journal.js';
import type { TerminalCommand } from '../../journal/types.js';
import { wallClockAt } from '../../punch.js';
import { ADMIN_COMMANDS, backfillCommand, type AdminCommand } from '../../sources/adms/index.js';
import { reparseKept } from '../../sources/adms/reparse.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { action, withJournal } from '../common.js';
import { localTime } from '../../util/local-time.js';
import { escapeControls } from '../../util/terminal-text.js';
import { terminalNamesHint } from '../terminal-names.js';

/** `punchgate terminals command|backfill|commands`: the command queue of push terminals. */

const iso = (ms: number | null) => (ms === null ? '-' : localTime(ms));

function pushTerminal(ctx: AppContext, name: string): AdmsTerminalConfig {
  const t = ctx.config.terminals.find((x) => x.name === name);
  if (!t)
    throw new ExitError(
      `no terminal named "${escapeControls(name)}" in the config${terminalNamesHint(
        name,
        ctx.config.terminals.filter((x) => x.kind === 'adms'),
        'push terminals',
      )}`,
      EXIT.CONFIG,
    );
  if (t.kind !== 'adms')
    throw new ExitError(`${name} is a ${t.kind} terminal: commands are for push terminals (kind: adms)`, EXIT.CONFIG);
  return t;
}

const storeOf = (ctx: AppContext, journal: Journal) => new PushStore(journal.db, journal, ctx.clock);

function adminCommand(v: string): AdminCommand {
  const c = v.toUpperCase();
  if (!(ADMIN_COMMANDS as readonly string[]).includes(c))
    throw new InvalidArgumentError(`expected one of ${ADMIN_COMMANDS.join(', ')}`);
  return c as AdminCommand;
}

/** `2026-11-01` or `2026-11-01 08:00[:00]`: a wall-clock time of the terminal. */
function wallTime(endOfDay: boolean) {
  return (v: string): string => {
    const s = v.trim().replace('T', ' ');
    const m = /^(\d{4}-\d{2}-\d{2})(?: (\d{2}:\d{2})(:\d{2})?)?$/.exec(s);
    const out = m
      ? `${m[1]} ${m[2] ?? (endOfDay ? '23:59' : '00:00')}${m[3] ?? (m[2] ? ':00' : endOfDay ? ':59' : ':00')}`
      : '';
    if (!m || Number.isNaN(Date.parse(out.replace(' ', 'T') + 'Z')))
      throw new InvalidArgumentError('expected a date YYYY-MM-DD or a time "YYYY-MM-DD HH:mm[:ss]" (terminal clock)');
    return out;
  };
}

function queued(c: { command: TerminalCommand; created: boolean }, name: string, what: string): string {
  return c.created
    ? `queued ${what} for ${name} as command ${c.command.id}: the terminal takes it at its next poll; see punchgate terminals commands ${name}\n`
    : `${what} for ${name} is already waiting (command ${c.command.id}, ${c.command.state}): not queued twice\n`;
}

export function registerTerminalCommands(terminals: Command): void {
  terminals
    .command('command')
    .description(
      'queue a command for a push terminal: INFO, CHECK (re-read settings, upload what is missing), LOG, REBOOT',
    )
    .argument('<name>', 'push terminal name')
    .argument('<command>', ADMIN_COMMANDS.join('|'), adminCommand)
    .option('--json', 'machine-readable output')
    .action(
      action((name: string, command: AdminCommand, opts: { json?: boolean }, cmd: Command) =>
        withJournal(cmd, (ctx, journal) => {
          pushTerminal(ctx, name);
          const c = storeOf(ctx, journal).enqueue(name, command);
          process.stdout.write(opts.json ? safeJson(c, 2) + '\n' : queued(c, name, command));
        }),
      ),
    );

  terminals
    .command('backfill')
    .description('ask a push terminal to upload the punches of a span again (the journal ignores those it has)')
    .argument('<name>', 'push terminal name')
    .requiredOption('--from <date>', 'first day (YYYY-MM-DD) or time, terminal clock', wallTime(false))
    .option('--to <date>', 'last day or time (default now, terminal clock)', wallTime(true))
    .option('--json', 'machine-readable output')
    .action(
      action((name: string, opts: { from: string; to?: string; json?: boolean }, cmd: Command) =>
        withJournal(cmd, (ctx, journal) => {
          const t = pushTerminal(ctx, name);
          const to = opts.to ?? wallClockAt(ctx.clock.now(), t.timezone);
          if (opts.from > to) throw new ExitError(`--from ${opts.from} is after --to ${to}`, EXIT.CONFIG);
          const store = storeOf(ctx, journal);
          // Security PUSH firmware has no ATTLOG query (it answers the attendance protocol's
          // commands -1002, unsupported): a command it can only refuse is not queued.
          if (store.registration(name, t.serial)?.protocol === 'security')
            throw new ExitError(
              `${name} speaks Security PUSH, whose firmware takes no ATTLOG query: backfill is not available for it. ` +
                'Its events stay in its own log: export them to a USB stick and run punchgate import --terminal ' +
                `${name} (what the journal has already stays once)`,
              EXIT.CONFIG,
            );
          const c = store.enqueue(name, backfillCommand(opts.from, to));
          process.stdout.write(
            opts.json ? safeJson(c, 2) + '\n' : queued(c, name, `a backfill of ${opts.from} to ${to}`),
          );
        }),
      ),
    );

  terminals
    .command('commands')
    .description("a push terminal's commands: queued, sent, done or failed, newest first")
    .argument('<name>', 'push terminal name')
    .option('--limit <n>', 'at most N commands', (v) => Math.max(1, Number(v) || 50), 50)
    .option('--json', 'machine-readable output')
    .action(
      action((name: string, opts: { limit: number; json?: boolean }, cmd: Command) =>
        withJournal(cmd, (ctx, journal) => {
          pushTerminal(ctx, name);
          const list = storeOf(ctx, journal).commands(name, { limit: opts.limit });
          if (opts.json) return void process.stdout.write(safeJson(list, 2) + '\n');
          if (list.length === 0) return void process.stdout.write(`no commands for ${name} yet\n`);
          process.stdout.write(
            textTable(
              ['ID', 'STATE', 'QUEUED', 'RESULT', 'RETURN', 'COMMAND'],
              list.map((c) => [
                String(c.id),
                c.state,
                iso(c.createdAt),
                iso(c.state === 'done' || c.state === 'failed' ? c.doneAt : c.sentAt),
                String(c.returnCode ?? '-'),
                c.command.replace(/\t/g, ' '),
              ]),
              { right: [0, 4] },
            ),
          );
          // A command punchgate settled itself (no RETURN from the terminal) says why underneath.
          for (const c of list)
            if (c.state === 'failed' && c.returnCode === null && c.result)
              process.stdout.write(`command ${c.id} failed: ${c.result}\n`);
        }),
      ),
    );
}

/** `punchgate terminals reparse NAME`: the kept uploads of a push terminal read again. */
export function registerReparse(terminals: Command): void {
  terminals
    .command('reparse')
    .description(
      "read a push terminal's kept uploads again (lines it sent that punchgate could not turn into punches): punches found are journalled once",
    )
    .argument('<name>', 'push terminal name')
    .option('--json', 'machine-readable output')
    .action(
      action((name: string, opts: { json?: boolean }, cmd: Command) =>
        withJournal(cmd, (ctx, journal) => {
          const t = pushTerminal(ctx, name);
          const r = reparseKept(storeOf(ctx, journal), t);
          if (opts.json) return void process.stdout.write(safeJson(r, 2) + '\n');
          if (r.uploads === 0 && r.unread === 0 && r.users === 0)
            return void process.stdout.write(`no kept uploads of ${name}: nothing to read again\n`);
          if (r.uploads > 0 || r.unread > 0)
            process.stdout.write(
              `${name}: ${r.uploads} kept upload(s) read again: ${r.added} new punch(es) journalled, ${r.duplicates} already in the journal, ${r.quarantined} quarantined (implausible time); ${r.stillKept} line(s) still not understood, kept\n`,
            );
          if (r.stillKept > 0)
            process.stdout.write(
              `the lines still not understood are no punches this punchgate reads: they stay kept as evidence for adms.keptUploads.maxAgeDays (${ctx.config.adms?.keptUploads.maxAgeDays ?? 30} days), and the status's alert ends a day after the last such upload\n`,
            );
          if (r.unread > 0)
            process.stdout.write(
              `${r.unread} kept upload(s) of tables this punchgate does not read stay kept (see punchgate status)\n`,
            );
          // User records carry no punch: said as what they are, not as punches that failed.
          if (r.users > 0)
            process.stdout.write(
              `${r.users} kept upload(s) of user records (OPERLOG, USERINFO, user table) hold lines of users punchgate could not read, not punches: reparse leaves them as they are, no attendance is missing; punchgate terminals users ${name} lists the users it did read, and the lines stay kept as evidence for adms.keptUploads.maxAgeDays (${ctx.config.adms?.keptUploads.maxAgeDays ?? 30} days)\n`,
            );
        }),
      ),
    );
}

/** `terminals users NAME` for a push terminal: the users it reported (OPERLOG), from the journal. */
export function printPushUsers(ctx: AppContext, journal: Journal, t: AdmsTerminalConfig, json: boolean): void {
  const users = storeOf(ctx, journal).users(t.name, t.serial);
  if (json) return void process.stdout.write(safeJson(users, 2) + '\n');
  process.stdout.write(
    textTable(
      ['USER ID', 'NAME', 'ROLE', 'CARD'],
      users.map((u) => [
        printable(u.pin, 64),
        printable(u.name, 64),
        u.privilege === 14 ? 'admin' : 'user',
        printable(u.card, 64),
      ]),
    ),
  );
  if (users.length === 0)
    process.stdout.write(`(no user records from ${t.name} yet: they arrive with its OPERLOG uploads)\n`);
}
