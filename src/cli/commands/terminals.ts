import { NameCodec } from '../../util/name-codec.js';
import { userNameBytes } from '../../sources/zk/protocol/user-records.js';
import type { Command } from 'commander';
import { defaultClientFactory } from '../../sources/zk/poll.js';
import { buildStatus, statusJson } from '../../status/index.js';
import { codeProblem } from '../../punch.js';
import { describeZkFault } from '../../sources/zk/fault.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { printable, safeJson } from '../../util/terminal-text.js';
import { textTableLines } from '../../util/text-table.js';
import { action, journalErrorOf, loadContext, openJournal, withJournal } from '../common.js';
import { registerHikvisionListen } from './hikvision-listen.js';
import { listDahuaUsers } from './dahua-users.js';
import { listHikvisionUsers } from './hikvision-users.js';
import { fmtSkew } from './poll.js';
import { printPushUsers, registerReparse, registerTerminalCommands } from './terminal-commands.js';
import { registerTerminalUserCommands } from './terminal-users.js';
import { localTime, localTimeOf } from '../../util/local-time.js';
import { readListenContact } from '../../sources/hikvision/listen-state.js';
import { escapeControls } from '../../util/terminal-text.js';
import { terminalNamesHint } from '../terminal-names.js';
import { terminalFaultError } from '../terminal-fault.js';
import { configKeyIn } from '../../config/terminals.js';
import { padWidth } from '../../util/display-width.js';
import { lastActivityHeading, lastActivityValue, notYetLabel } from '../../status/activity-words.js';
import { firstFew } from '../../util/first-few.js';

const when = (iso: string | null) => localTimeOf(iso);

export function registerTerminals(program: Command): void {
  const terminals = program
    .command('terminals')
    .description('list terminals: online or offline, last poll (read, contact), clock skew, record and user counts')
    .option('--json', 'machine-readable output')
    .action(
      action((opts: { json?: boolean }, cmd: Command) =>
        withJournal(
          cmd,
          (ctx, journal) => {
            const list = buildStatus(journal, ctx.config, ctx.clock.now()).terminals;
            if (opts.json) return void process.stdout.write(statusJson(list));
            // Serial readers are read and push terminals call: their column says so (activity-words.ts).
            const kinds = list.map((t) => t.kind);
            const lines = textTableLines(
              ['NAME', 'KIND', 'STATE', lastActivityHeading(kinds).toUpperCase(), 'SKEW', 'RECORDS', 'USERS', 'SERIAL'],
              list.map((t) => [
                t.name,
                t.kind,
                t.lastPollAt === null
                  ? notYetLabel(t.kind)
                  : t.loginRefused
                    ? 'login refused'
                    : t.online
                      ? 'online'
                      : 'offline',
                lastActivityValue(t.kind, kinds, when(t.lastPollAt)),
                fmtSkew(t.skewSeconds),
                String(t.records ?? '-'),
                String(t.users ?? '-'),
                `${printable(t.serial, 64)}${t.previousSerial ? ` (was ${printable(t.previousSerial, 64)})` : ''}`,
              ]),
              { right: [5, 6] },
            );
            process.stdout.write(`${lines[0]}\n`);
            for (const [i, t] of list.entries()) {
              process.stdout.write(`${lines[i + 1]}\n`);
              // Offline: its clock, records and users are what it said at its last answer.
              if (t.stale)
                process.stdout.write(
                  `  figures as of ${when(t.lastSuccessAt)} (${t.loginRefused ? 'login refused' : 'offline'})\n`,
                );
              // A problem here means the last poll failed: the terminal is unreachable, or reached but the poll did not finish.
              if (t.problem)
                process.stdout.write(
                  `  problem: ${printable(ctx.secrets.scrub(t.problem.cause), 300)}: ${printable(ctx.secrets.scrub(t.problem.fix), 300)}\n`,
                );
              const own = ctx.config.terminals.find((c) => c.name === t.name);
              if (own?.kind === 'hikvision' && own.listen) {
                const c = readListenContact(journal.sourceState, t.name);
                process.stdout.write(
                  `  posts its events (HTTP Listening): ${c ? `last post ${localTime(c.lastPostAt)}` : 'no post yet (punchgate terminals listen ' + t.name + ')'}\n`,
                );
              }
              for (const d of t.devices ?? [])
                process.stdout.write(
                  `  terminal behind it: ${printable(d.serial, 64)} ${printable(d.alias || '-', 64)}${d.area ? ` (${printable(d.area, 64)})` : ''}, last punch ${d.lastPunch || '-'}, ${d.read} punches read\n`,
                );
              if (t.push) {
                const p = t.push;
                process.stdout.write(
                  `  push (${p.protocol === 'security' ? 'Security PUSH' : 'attendance protocol'}): last contact ${when(p.lastContactAt)} from ${printable(p.address ?? '-', 64)}, last upload ${when(p.lastUploadAt)}, ${p.received} punches received, ${p.malformed} malformed lines${t.firmware ? `, firmware ${printable(t.firmware, 64)}` : ''}\n`,
                );
                if (p.device)
                  process.stdout.write(
                    `  device: ${printable(p.device.model ?? 'model not said', 64)}${p.device.pushVersion ? `, push ${printable(p.device.pushVersion, 32)}` : ''}${
                      Object.entries(p.device.capacities).length > 0
                        ? `, capacities ${Object.entries(p.device.capacities)
                            .map(([k, v]) => `${printable(k, 32)} ${printable(String(v), 16)}`)
                            .join(', ')}`
                        : ''
                    }\n`,
                  );
                for (const k of p.kept ?? [])
                  if (k.held > 0 || k.dropped > 0)
                    process.stdout.write(
                      `  kept raw: ${k.held} ${k.table} upload(s) (${k.lines} lines in all, ${k.dropped} dropped${k.droppedOld > 0 ? `, ${k.droppedOld} of them for their age` : ''}): ${printable(k.lastReason ?? '-', 200)}\n`,
                    );
                const other = (p.notPunches ?? []).map((e) => `${e.table} ${e.code} ×${e.count}`);
                if (other.length > 0) process.stdout.write(`  not punches: ${printable(firstFew(other, 8), 300)}\n`);
              }
            }
          },
          { readonly: true },
        ),
      ),
    );

  registerTerminalCommands(terminals);
  registerReparse(terminals);

  terminals
    .command('users')
    .description(
      "list a terminal's enrolled users (ZK, Hikvision and Dahua: read from the terminal; push: as it reported them)",
    )
    .argument('<name>', 'terminal name')
    .option('--json', 'machine-readable output')
    .action(
      action(async (name: string, opts: { json?: boolean }, cmd: Command) => {
        const t0 = loadContext(cmd, { logToStderr: true }).config.terminals.find((x) => x.name === name);
        if (t0?.kind === 'adms')
          return withJournal(cmd, (ctx, journal) => printPushUsers(ctx, journal, t0, Boolean(opts.json)), {
            readonly: true,
          });
        const ctx = loadContext(cmd, { logToStderr: true });
        const t = ctx.config.terminals.find((x) => x.name === name);
        if (t?.kind === 'hikvision' || t?.kind === 'dahua') {
          const journal = openJournal(ctx);
          try {
            return t.kind === 'dahua'
              ? await listDahuaUsers(ctx, journal, t, Boolean(opts.json))
              : await listHikvisionUsers(ctx, journal, t, Boolean(opts.json));
          } catch (e) {
            throw journalErrorOf(journal.path, e);
          } finally {
            journal.close();
          }
        }
        if (t && t.kind !== 'zk')
          throw new ExitError(
            `${escapeControls(name)} is a ${t.kind} terminal: it holds no users (terminals users reads zk, hikvision, dahua and push terminals)`,
            EXIT.CONFIG,
          );
        if (!t) {
          const holders = ctx.config.terminals.filter((x) => ['zk', 'hikvision', 'dahua', 'adms'].includes(x.kind));
          throw new ExitError(
            `no zk, hikvision, dahua or push terminal named "${escapeControls(name)}" in the config${
              holders.length === 0 && ctx.config.terminals.length > 0
                ? ' (it has none of those kinds)'
                : terminalNamesHint(name, holders)
            }`,
            EXIT.CONFIG,
          );
        }
        const client = defaultClientFactory(t);
        try {
          await client.connect();
          // Names in the terminal's own character set (its `encoding`, UTF-8 by default).
          const names = new NameCodec(t.encoding);
          const users = (await client.getUserTable()).users.map(({ user, raw }) => ({
            ...user,
            name: names.decode(userNameBytes(raw)).text,
          }));
          await client.disconnect();
          if (opts.json)
            return void process.stdout.write(
              safeJson(
                users.map(({ password: _p, ...u }) => u),
                2,
              ) + '\n',
            );
          process.stdout.write(
            `${'UID'.padStart(5)}  ${'USER ID'.padEnd(24)} ${'NAME'.padEnd(24)} ${'ROLE'.padEnd(6)} CARD\n`,
          );
          for (const u of users) {
            // A user id that is not a usable biometric code: its punches are refused (reported, never sent).
            const bad = codeProblem(u.userId);
            process.stdout.write(
              `${String(u.uid).padStart(5)}  ${printable(u.userId, 64).padEnd(24)} ${padWidth(printable(u.name, 64), 24)} ${(u.privilege === 14 ? 'admin' : 'user').padEnd(6)} ${printable(String(u.card || ''), 64)}${bad ? `  ! ${bad}: its punches are not accepted` : ''}\n`,
            );
          }
        } catch (e) {
          client.destroy();
          // In the words the status and check use, with the setting to look at.
          throw terminalFaultError(ctx, name, describeZkFault(e, t, configKeyIn(ctx.config, t.name)));
        }
      }),
    );

  registerTerminalUserCommands(terminals);
  registerHikvisionListen(terminals);
}
