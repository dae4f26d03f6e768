/**
 * `punchgate terminals commands` for a command punchgate settled `failed` itself (text the
 * terminal's character set cannot hold: CommandTakeLimits.unsendable), beside one the terminal
 * refused with its own return code: only the first gets the "failed: why" line, under its own id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { PushStore } from '../../src/journal/push-store.js';
import { systemClock } from '../../src/util/clock.js';
import { cliSandbox } from '../helpers/cli.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const WHY =
  'not sent: its text has characters GB2312 (the terminal\'s encoding) cannot hold: "ë" (U+00EB); queue it again in characters of that set (sync-users does)';

describe('terminals commands: a command punchgate could never send', () => {
  it('shows it failed with no RETURN, and says why under its own id only', async () => {
    const s = cliSandbox({
      terminals: [{ name: 'lobby', kind: 'adms', serial: 'LOBBY0001', timezone: 'UTC' }],
      adms: { listen: '127.0.0.1:0' },
    });
    cleanups.push(s.tmp.cleanup);
    const j = Journal.open({ path: s.tmp.path('journal.db'), site: 'plant-a', mode: 'shared' });
    const store = new PushStore(j.db, j, systemClock);
    const info = store.enqueue('lobby', 'INFO').command;
    const zoe = store.enqueue('lobby', 'DATA UPDATE USERINFO PIN=7\tName=Zoë').command;
    const log = store.enqueue('lobby', 'LOG').command;
    const taken = store.takeCommands('lobby', Date.now(), {
      max: 10,
      maxBytes: 10_000,
      resendAfterMs: 60_000,
      mayResend: () => true,
      isLast: () => false,
      unsendable: (c) => (c.includes('ë') ? WHY : null),
    });
    expect(taken.map((c) => `${c.id} ${c.state}`)).toEqual([`${info.id} sent`, `${log.id} sent`, `${zoe.id} failed`]);
    // The terminal refuses LOG with its own code: a failure it said, with no "punchgate settled" line.
    store.settleCommands('lobby', 'LOBBY0001', [{ id: String(log.id), returnCode: -1002, cmd: 'LOG' }], Date.now());
    j.close();

    const r = await s.cli('terminals', 'commands', 'lobby');
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.split('\n').filter(Boolean);
    const row = (id: number) => rows.find((l) => l.trimStart().startsWith(`${id} `)) ?? '';
    expect(row(zoe.id)).toMatch(/^ *\d+ +failed +\S+ \S+ \S+ +\S+ \S+ \S+ +- +DATA UPDATE USERINFO PIN=7 Name=Zoë$/);
    expect(row(log.id)).toMatch(/ failed .* -1002 +LOG$/);
    expect(row(info.id)).toMatch(/^ *\d+ +sent /);
    expect(rows.filter((l) => l.startsWith('command '))).toEqual([`command ${zoe.id} failed: ${WHY}`]);

    const json = JSON.parse((await s.cli('terminals', 'commands', 'lobby', '--json')).stdout) as {
      id: number;
      state: string;
      returnCode: number | null;
      result: string | null;
    }[];
    expect(json.find((c) => c.id === zoe.id)).toMatchObject({ state: 'failed', returnCode: null, result: WHY });
  });
});
