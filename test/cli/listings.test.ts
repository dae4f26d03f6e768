import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { UserBackupStore } from '../../src/journal/user-backups.js';
import { cliSandbox } from '../helpers/cli.js';

/**
 * The listings a site admin reads in the first hour: headers over their columns whatever the
 * cells hold (a `hikvision` terminal, times with their offset, long names), and `--help` of
 * `run` naming the options it takes.
 */

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * Checks that every row lines up with the header: a left-aligned column's cells start where its
 * header starts, a right-aligned column's (`right`, header names) end where its header ends.
 * Header names are separated by two spaces or more.
 */
function expectAligned(lines: readonly string[], right: readonly string[] = []): void {
  const [header, ...rows] = lines;
  expect(rows.length).toBeGreaterThan(0);
  const columns = [...header!.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
    name: m[0],
    start: m.index,
    end: m.index + m[0].length,
  }));
  for (const row of rows) {
    for (const [i, c] of columns.entries()) {
      if (right.includes(c.name)) {
        expect(row[c.end - 1], `${c.name} in "${row}"`).toMatch(/\S/);
        expect(row[c.end] ?? ' ', `${c.name} in "${row}"`).toBe(' ');
      } else if (i === columns.length - 1 && row.length <= c.start) {
        // An empty last cell (a terminal without a serial yet): nothing to line up.
      } else if (i > 0) {
        expect(row[c.start - 1], `${c.name} in "${row}"`).toBe(' ');
        expect(row[c.start], `${c.name} in "${row}"`).toMatch(/\S/);
      }
    }
  }
}

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('listings line up with their headers', () => {
  const terminals = [
    { name: 'gate-1', kind: 'zk', host: '127.0.0.1', port: 4370 },
    { name: 'reception-entrance-2', kind: 'hikvision', url: 'https://127.0.0.1:1', username: 'admin' },
    { name: 'lobby', kind: 'adms', serial: 'LOBBY0001', timezone: 'UTC' },
  ];

  it('terminals: the KIND column holds hikvision, a long name widens NAME', async () => {
    const s = cliSandbox({ terminals, adms: { listen: '127.0.0.1:0' } });
    cleanups.push(s.tmp.cleanup);
    const r = await s.cli('terminals');
    expect(r.status, r.stderr).toBe(0);
    const table = lines(r.stdout).filter((l) => !l.startsWith('  '));
    expect(table.some((l) => /^reception-entrance-2\s+hikvision\s/.test(l))).toBe(true);
    expectAligned(table, ['RECORDS', 'USERS']);
  });

  it('terminals commands and terminals backups: times with their offset stay under their headers', async () => {
    const s = cliSandbox({ terminals, adms: { listen: '127.0.0.1:0' } });
    cleanups.push(s.tmp.cleanup);
    for (const c of ['INFO', 'CHECK']) expect((await s.cli('terminals', 'command', 'lobby', c)).status).toBe(0);
    const commands = await s.cli('terminals', 'commands', 'lobby');
    expect(commands.status, commands.stderr).toBe(0);
    expect(lines(commands.stdout)[1]).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{2}:\d{2}/);
    expectAligned(lines(commands.stdout), ['ID', 'RETURN']);
    // --json after the subcommand is the subcommand's, though `terminals` defines it too.
    const asJson = await s.cli('terminals', 'commands', 'lobby', '--json');
    expect(asJson.status, asJson.stderr).toBe(0);
    expect((JSON.parse(asJson.stdout) as { command: string }[]).map((c) => c.command)).toHaveLength(2);
    const queued = await s.cli('terminals', 'command', 'lobby', 'LOG', '--json');
    expect((JSON.parse(queued.stdout) as { command: { state: string } }).command.state).toBe('queued');

    const j = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-a', mode: 'shared' });
    const store = new UserBackupStore(j.db);
    for (const [code, name] of [
      ['1003', 'Chen Li'],
      ['20417', 'Maria-Theresa Oberhuber-Grünwald'],
    ])
      store.save({
        terminal: 'gate-1',
        serial: 'SN-1',
        fpVersion: '10',
        code: code!,
        uid: 3,
        name: name!,
        card: 0,
        privilege: 0,
        reason: 'sync-users: inactive in the roster',
        templates: [{ finger: 0, valid: 1, template: Buffer.from('tpl') }],
      });
    j.close();
    const backups = await s.cli('terminals', 'backups');
    expect(backups.status, backups.stderr).toBe(0);
    expectAligned(lines(backups.stdout), ['FINGERS']);
  });
});

describe('--help', () => {
  it('run --help lists the options run takes (the ones every command takes)', async () => {
    const s = cliSandbox();
    cleanups.push(s.tmp.cleanup);
    const r = await s.cli('run', '--help');
    expect(r.status).toBe(0);
    for (const o of ['--config <file>', '--pretty', '--log-level <level>']) expect(r.stdout).toContain(o);
    // A subcommand lists those, not its parent's own options (punches' listing filters).
    const retry = await s.cli('punches', 'retry', '--help');
    expect(retry.stdout).toContain('--config <file>');
    expect(retry.stdout).not.toContain('--history');
  });
});
