import type { PushStore } from '../../src/journal/push-store.js';
/**
 * sync-users on push terminals (ADMS): the in-process receiver with a real journal file, the push
 * terminal simulator polling it, and sync-users in-process and as a child process of the built CLI.
 * Changes are queued on the journal's command queue and are 'queued' until the terminal confirms them.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { USERS_UPLOAD_GRACE_MS } from '../../src/roster/push/push-sync.js';
import { runSyncUsers, type SyncCommandOptions } from '../../src/roster/sync-command.js';
import { startPushTerminalSim, type PushSimUser, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, terminal } from '../adms/harness.js';

const SN = 'LOBBY0001';
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const ON_TERMINAL: PushSimUser[] = [
  { pin: '1001', name: 'Ana', privilege: 0, card: '111' },
  { pin: '1002', name: 'Ben', privilege: 0, card: '' },
  { pin: '1003', name: 'Chen Leaver', privilege: 0, card: '333' },
  { pin: '9001', name: 'Site Admin', privilege: 14, card: '' },
  { pin: '5555', name: 'Stranger', privilege: 0, card: '' },
];

const ROSTER = [
  'code,name,card,active',
  '1001,Ana One,111,1', // rename
  '1002,Ben,222,', // card change
  '1003,Chen Leaver,,0', // leaver
  '1004,New Hire,444,', // hire
  '9001,Site Admin,,no', // an administrator the roster calls a leaver: kept
];

const EXPECTED_COMMANDS = [
  'DATA DELETE USERINFO PIN=1003',
  'DATA UPDATE USERINFO PIN=1001\tName=Ana One\tCard=111\tPri=0',
  'DATA UPDATE USERINFO PIN=1002\tName=Ben\tCard=222\tPri=0',
  'DATA UPDATE USERINFO PIN=1004\tName=New Hire\tCard=444\tPri=0',
];

describe('sync-users on a push terminal', () => {
  let r: Receiver | undefined;
  const sims: PushTerminalSim[] = [];
  afterEach(async () => {
    await Promise.all(sims.splice(0).map((s) => s.stop()));
    await r?.stop();
    r = undefined;
  });

  function setup(): { config: Config; configPath: string; roster: string } {
    const raw = {
      site: 'adms',
      journal: { path: 'journal.db' },
      hrms: { baseUrl: 'http://127.0.0.1:9' },
      adms: { listen: '127.0.0.1:0' },
      terminals: [{ name: 'lobby', kind: 'adms', serial: SN, timezone: 'UTC' }],
    };
    const configPath = r!.tmp.path('punchgate.yaml');
    writeFileSync(configPath, stringify(raw));
    const roster = r!.tmp.path('roster.csv');
    writeFileSync(roster, ROSTER.join('\n') + '\n');
    return { config: parseConfig(raw, r!.tmp.dir), configPath, roster };
  }

  async function sync(config: Config, opts: SyncCommandOptions, now = () => Date.now()) {
    const output = { code: -1, out: '', err: '' };
    output.code = await runSyncUsers(opts, {
      config,
      journal: r!.journal,
      now,
      out: { write: (s: string) => (output.out += s) },
      err: { write: (s: string) => (output.err += s) },
      scrub: (s) => s,
    });
    return output;
  }

  /** The terminal as it powers up: registers, polls once, uploads its users, then polls every `delayMs`. */
  function terminalUp(
    users: PushSimUser[],
    delayMs: number,
    protocol: 'attendance' | 'security' = 'attendance',
  ): PushTerminalSim {
    const sim = startPushTerminalSim({
      server: r!.url,
      serial: SN,
      users,
      punches: 0,
      delayMs,
      errorDelayMs: 50,
      protocol,
    });
    sims.push(sim);
    return sim;
  }

  /** The terminal has called the receiver (a getrequest), without any user upload. */
  const contacted = (at: number) =>
    r!.store.recordContacts([
      { terminal: 'lobby', serial: SN, lastContactAt: at, address: '127.0.0.1', online: true, offlineSince: null },
    ]);

  const commandTexts = () =>
    r!.store
      .commands('lobby')
      .reverse()
      .map((c) => c.command);

  it('queues exactly the roster changes; the terminal applies them at its poll; nothing is queued twice; a rerun after confirmation changes nothing', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const { config, configPath, roster } = setup();
    // Up, users uploaded, then silent for a minute: no command is taken before we say so.
    const first = terminalUp(ON_TERMINAL, 60_000);
    await waitFor(() => r!.store.users('lobby', SN).length === 5, 10_000, 'users from the OPERLOG upload');
    await first.stop();
    sims.splice(0);

    const dry = await sync(config, { roster, dryRun: true });
    expect(dry.code, dry.out + dry.err).toBe(0);
    expect(dry.out).toContain('would add 1, update 2, remove 1');
    expect(r.store.commands('lobby')).toEqual([]);

    // The site admin's run, as a child process of the built CLI, against the journal the receiver holds.
    const run = await runPunchgate(['--config', configPath, 'terminals', 'sync-users', '--roster', roster, '--json']);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    const lobby = report.terminals[0];
    expect(lobby).toMatchObject({ terminal: 'lobby', kind: 'adms', reached: true });
    expect(
      lobby.changes.map((c: { action: string; code: string; status: string }) => `${c.action} ${c.code} ${c.status}`),
    ).toEqual(['remove 1003 queued', 'update 1001 queued', 'update 1002 queued', 'add 1004 queued']);
    expect(lobby.protectedAdmins).toEqual([expect.objectContaining({ code: '9001', reason: 'inactive' })]);
    expect(lobby.counts).toMatchObject({ added: 1, updated: 2, removed: 1, leftAlone: 1, protectedAdmins: 1 });
    expect(lobby.notes.join()).toContain('punchgate terminals commands lobby');
    expect(commandTexts()).toEqual(EXPECTED_COMMANDS);
    expect(r.store.commands('lobby').every((c) => c.state === 'queued')).toBe(true);

    // Run again before the terminal took them: nothing new is queued, the report says they wait.
    const again = await sync(config, { roster });
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain('lobby (adms SN=LOBBY0001');
    expect(again.out).toContain('0 added, 0 updated, 0 removed; 3 unchanged, 1 not in the roster (left alone)');
    expect(again.out).toContain('4 user command(s) queued earlier are not confirmed yet');
    expect(commandTexts()).toEqual(EXPECTED_COMMANDS);

    // The leaver's record is backed up (no fingerprints: push terminals send none we keep).
    const backups = await runPunchgate(['--config', configPath, 'terminals', 'backups', '--json']);
    expect(JSON.parse(backups.stdout)).toEqual([
      expect.objectContaining({ terminal: 'lobby', code: '1003', name: 'Chen Leaver', fingers: 0 }),
    ]);

    // The terminal comes back and polls: it applies the commands and confirms them (devicecmd).
    const sim = terminalUp(ON_TERMINAL, 50);
    await waitFor(() => r!.store.commands('lobby').every((c) => c.state === 'done'), 10_000, 'commands confirmed');
    expect(
      sim
        .users()
        .map((u) => `${u.pin} ${u.name} ${u.card} ${u.privilege}`)
        .sort(),
    ).toEqual([
      '1001 Ana One 111 0',
      '1002 Ben 222 0',
      '1004 New Hire 444 0',
      '5555 Stranger  0',
      '9001 Site Admin  14',
    ]);
    const shown = await runPunchgate(['--config', configPath, 'terminals', 'commands', 'lobby']);
    expect(shown.stdout.match(/ done /g)).toHaveLength(4);
    expect(shown.stdout).toContain('DATA UPDATE USERINFO PIN=1004 Name=New Hire Card=444 Pri=0');

    // After confirmation, the same roster changes nothing and queues nothing.
    const third = await sync(config, { roster });
    expect(third.code).toBe(0);
    expect(third.out).toContain(
      '0 added, 0 updated, 0 removed; 3 unchanged, 1 not in the roster (left alone), 1 administrator(s) kept',
    );
    expect(third.out).not.toContain('not confirmed yet');
    expect(r.store.commands('lobby')).toHaveLength(4);
  });

  it('a Security PUSH terminal gets the user commands of its protocol (user table, Pin=, CardNo=, userauthorize), and applies them', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const { config, roster } = setup();
    const first = terminalUp(ON_TERMINAL, 60_000, 'security');
    await waitFor(() => r!.store.users('lobby', SN).length === 5, 10_000, 'users from the tabledata upload');
    await first.stop();
    sims.splice(0);
    expect(r.store.registration('lobby', SN)?.protocol).toBe('security');

    const run = await sync(config, { roster });
    expect(run.code, run.out + run.err).toBe(0);
    expect(commandTexts()).toEqual([
      'DATA DELETE user Pin=1003',
      'DATA UPDATE user CardNo=111\tPin=1001\tName=Ana One\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=1001\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1',
      'DATA UPDATE user CardNo=222\tPin=1002\tName=Ben\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=1002\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1',
      'DATA UPDATE user CardNo=444\tPin=1004\tName=New Hire\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=1004\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1',
    ]);
    // Queued, not yet taken: a second run plans nothing again.
    const again = await sync(config, { roster });
    expect(again.out).toContain('0 added, 0 updated, 0 removed');
    expect(r.store.commands('lobby')).toHaveLength(7);

    // The terminal polls: it understands every command (none refused as unsupported) and applies them.
    const sim = terminalUp(ON_TERMINAL, 50, 'security');
    await waitFor(
      () => r!.store.commands('lobby').every((c) => c.state !== 'queued' && c.state !== 'sent'),
      10_000,
      'commands answered',
    );
    expect(r.store.commands('lobby').map((c) => c.state)).toEqual(Array(7).fill('done'));
    expect(
      sim
        .users()
        .map((u) => `${u.pin} ${u.name} ${u.card} ${u.privilege}`)
        .sort(),
    ).toEqual([
      '1001 Ana One 111 0',
      '1002 Ben 222 0',
      '1004 New Hire 444 0',
      '5555 Stranger  0',
      '9001 Site Admin  14',
    ]);
    const third = await sync(config, { roster });
    expect(third.out).toContain('0 added, 0 updated, 0 removed; 3 unchanged');
    expect(r.store.commands('lobby')).toHaveLength(7);
  });

  it('a terminal refuses the user commands of the other protocol, as real firmware does (Return=-1002)', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const sim = terminalUp(ON_TERMINAL, 50, 'security');
    await waitFor(() => r!.store.users('lobby', SN).length === 5, 10_000, 'users uploaded');
    r.store.enqueue('lobby', 'DATA UPDATE USERINFO PIN=1004\tName=New Hire\tCard=444\tPri=0');
    await waitFor(() => r!.store.commands('lobby')[0]?.state === 'failed', 10_000, 'the command refused');
    expect(sim.users().map((u) => u.pin)).not.toContain('1004');
  });

  it('a command the terminal refuses is failed in the queue, and the next run queues the change again', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const { config, roster } = setup();
    const sim = terminalUp(ON_TERMINAL, 50);
    await waitFor(() => r!.store.users('lobby', SN).length === 5, 10_000, 'users from the OPERLOG upload');
    // A PIN the simulated firmware refuses: an empty one is not a user command it knows (-1002).
    r.store.enqueue('lobby', 'DATA UPDATE USERINFO Name=broken');
    await waitFor(() => r!.store.commands('lobby')[0]!.state === 'failed', 10_000, 'refused');
    expect((await sync(config, { roster })).code).toBe(0);
    await waitFor(() => r!.store.openCommands('lobby').length === 0, 10_000, 'commands confirmed');
    expect(sim.users().find((u) => u.pin === '1004')?.name).toBe('New Hire');
    expect((await sync(config, { roster })).out).toContain('0 added, 0 updated, 0 removed');
  });

  it.each(['attendance', 'security'] as const)(
    'names with joiners and variation selectors are kept as the terminal holds them: a rerun rewrites nobody (%s protocol)',
    async (protocol) => {
      r = await startReceiver({ terminals: [terminal('lobby', SN)] });
      const { config } = setup();
      // A Persian name with a zero-width non-joiner, a family emoji (joiners), a heart with VS16.
      const names = ['فاطمه\u200cزهرا', '\u{1F469}\u200d\u{1F467} Li', 'Ana \u2764\ufe0f'];
      const users = names.map((name, i) => ({ pin: String(2001 + i), name, privilege: 0, card: '' }));
      const first = terminalUp(users, 60_000, protocol);
      await waitFor(() => r!.store.users('lobby', SN).length === 3, 10_000, 'users uploaded');
      await first.stop();
      sims.splice(0);
      // What the journal keeps is the name itself, not its escaped display form.
      expect(
        r.store
          .users('lobby', SN)
          .map((u) => u.name)
          .sort(),
      ).toEqual([...names].sort());
      const roster = r.tmp.path('names.csv');
      writeFileSync(
        roster,
        ['code,name', ...users.map((u) => `${u.pin},${u.name}`), '2004,\u{1F469}\u200d\u{1F466} New'].join('\n') + '\n',
      );
      const once = await sync(config, { roster });
      expect(once.out).toContain('1 added, 0 updated, 0 removed; 3 unchanged');
      // The queued add, laid over the known users, is the same name too: nothing planned again.
      const again = await sync(config, { roster });
      expect(again.out).toContain('0 added, 0 updated, 0 removed; 4 unchanged');
      expect(
        r.store
          .commands('lobby')
          .filter((c) => c.command.startsWith('DATA UPDATE user ') || c.command.startsWith('DATA UPDATE USERINFO')),
      ).toHaveLength(1);
    },
  );

  it('a terminal that never reported its users is asked for them first; one that never called is not reached', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const { config, roster } = setup();
    const never = await sync(config, { roster });
    expect(never.code).toBe(75);
    expect(never.out).toContain('lobby (adms SN=LOBBY0001): NOT REACHED: SN=LOBBY0001 has not contacted punchgate yet');
    expect(r.store.commands('lobby')).toEqual([]);

    // Contact without any user upload (a terminal whose OPERLOG went elsewhere): asked to upload its users.
    contacted(Date.now());
    const unknown = await sync(config, { roster });
    expect(unknown.code).toBe(75);
    expect(unknown.out).toMatch(
      /its users are not known yet: asked it to upload them \(command \d+, DATA QUERY USERINFO\)/,
    );
    expect(commandTexts()).toEqual(['DATA QUERY USERINFO']);
  });

  it('after the terminal confirms the request for its users, nothing is planned until their upload has had time to arrive', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const { config, roster } = setup();
    const t0 = Date.now();
    contacted(t0);
    expect((await sync(config, { roster }, () => t0)).code).toBe(75);
    const query = r.store.commands('lobby')[0]!;
    // The terminal takes the query and says it is done before its upload arrives (firmware does either order).
    handOut(r.store, t0);
    r.store.settleCommands('lobby', SN, [{ id: String(query.id), returnCode: 0, cmd: 'DATA' }], t0 + 1000);

    const early = await sync(config, { roster }, () => t0 + 1000 + USERS_UPLOAD_GRACE_MS - 1);
    expect(early.code).toBe(75);
    expect(early.out).toContain(`it confirmed the request for its users (command ${query.id})`);
    expect(early.out).toContain('nothing queued: run sync-users again after');
    expect(commandTexts()).toEqual(['DATA QUERY USERINFO']);

    // The first part of the upload: the administrator, the roster's leaver 9001 (kept as one).
    const upload = { terminal: 'lobby', serial: SN, table: 'OPERLOG', stamp: null, at: t0 + 5000 };
    r.store.commitUsers(upload, [{ pin: '9001', name: 'Site Admin', card: '', privilege: 14 }], {
      count: 0,
      first: null,
    });
    r.store.commitUsers({ ...upload, at: t0 + 6000 }, [{ pin: '1001', name: 'Ana', card: '111', privilege: 0 }], {
      count: 0,
      first: null,
    });
    const later = await sync(config, { roster }, () => t0 + 1000 + USERS_UPLOAD_GRACE_MS);
    expect(later.code).toBe(0);
    // Never an "add" of the administrator with Pri=0: it is known, and kept.
    expect(commandTexts()).toEqual([
      'DATA QUERY USERINFO',
      'DATA UPDATE USERINFO PIN=1001\tName=Ana One\tCard=111\tPri=0',
      'DATA UPDATE USERINFO PIN=1002\tName=Ben\tCard=222\tPri=0',
      'DATA UPDATE USERINFO PIN=1004\tName=New Hire\tCard=444\tPri=0',
    ]);
    expect(later.out).toContain('1 administrator(s) kept');
  });

  it('a terminal that confirmed the request and uploaded nothing has no users: the roster is added once the wait is over', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const { config, roster } = setup();
    const t0 = Date.now();
    contacted(t0);
    await sync(config, { roster }, () => t0);
    const query = r.store.commands('lobby')[0]!;
    handOut(r.store, t0);
    r.store.settleCommands('lobby', SN, [{ id: String(query.id), returnCode: 0, cmd: 'DATA' }], t0);
    const after = await sync(config, { roster }, () => t0 + USERS_UPLOAD_GRACE_MS);
    expect(after.code).toBe(0);
    expect(commandTexts().slice(1)).toEqual([
      'DATA UPDATE USERINFO PIN=1001\tName=Ana One\tCard=111\tPri=0',
      'DATA UPDATE USERINFO PIN=1002\tName=Ben\tCard=222\tPri=0',
      'DATA UPDATE USERINFO PIN=1004\tName=New Hire\tCard=444\tPri=0',
    ]);
  });
});

/** The terminal's poll: its queued commands are handed to it (a result settles only a command handed out). */
function handOut(store: { takeCommands: PushStore['takeCommands'] }, now: number): void {
  store.takeCommands('lobby', now, {
    max: 50,
    maxBytes: 40_960,
    resendAfterMs: 600_000,
    mayResend: () => true,
    isLast: () => false,
  });
}
