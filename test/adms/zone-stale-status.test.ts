import { afterEach, describe, expect, it } from 'vitest';
import { checkAdmsTerminal, readPushState } from '../../src/check/adms-check.js';
import { parseConfig } from '../../src/config/load.js';
import type { AdmsTerminalConfig } from '../../src/config/terminals.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { pushZoneOf } from '../../src/status/push-zone.js';
import { renderPage } from '../../src/web/page.js';
import { waitFor } from '../helpers/wait.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'ZONE7232160009';

/**
 * Berlin leaves summer time on 2026-10-25 at 01:00 UTC. A terminal told TimeZone=2 the day before
 * is sent CHECK; one that refuses it keeps its old offset until it restarts. The command's
 * `failed` was the only trace: the status, the page and `check` now say the zone is stale, with
 * the fix, until the terminal reads its options again and is told the new offset.
 */
describe('a push terminal that refuses the CHECK after its offset changed', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('is said to keep a stale zone in the status, the page and check, until it is told the new offset', async () => {
    let now = Date.UTC(2026, 9, 24, 12, 0, 0);
    r = await startReceiver({
      terminals: [terminal('lobby', SN, { timezone: 'Europe/Berlin' })],
      clock: { now: () => now, elapsed: () => now },
    });
    const config = parseConfig(
      {
        site: 'adms',
        journal: { path: r.tmp.path('journal.db') },
        hrms: { baseUrl: 'https://hr.example.com' },
        adms: { listen: '127.0.0.1:0', delay: 10 },
        terminals: [{ name: 'lobby', kind: 'adms', serial: SN, timezone: 'Europe/Berlin' }],
      },
      r.tmp.dir,
    );
    const options = async () =>
      (await http(r!.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`)).body.match(/TimeZone=(.*)/)?.[1];
    const poll = async () => (await http(r!.url, 'GET', `/iclock/getrequest?SN=${SN}`)).body;
    const said = () => {
      const status = buildStatus(r!.journal, config, now);
      const seen = readPushState(r!.tmp.path('journal.db'), now, config.terminals as AdmsTerminalConfig[]);
      const checked = checkAdmsTerminal(config.terminals[0] as AdmsTerminalConfig, {
        adms: config.adms,
        push: seen.terminals.get('lobby'),
        kept: seen.kept,
        zones: seen.zones,
        now,
      });
      return { status, checked, alert: status.alertItems.find((a) => a.kind === 'push-zone-stale') };
    };

    expect(await options()).toBe('2');
    expect(await poll()).toBe('OK');
    expect(said().alert).toBeUndefined();

    now = Date.UTC(2026, 9, 25, 2, 0, 0);
    const id = /^C:(\d+):CHECK\n$/.exec(await poll())![1];
    await http(r.url, 'POST', `/iclock/devicecmd?SN=${SN}`, `ID=${id}&Return=-1002&CMD=CHECK`);
    expect(await poll()).toBe('OK');

    // Contacts are written in batches: wait until the last poll is in the journal (online).
    const online = () => buildStatus(r!.journal, config, now).terminals.find((t) => t.name === 'lobby')!.online;
    await waitFor(online, 5000, 'the poll after the CHECK recorded');
    const stale = said();
    expect(stale.alert).toEqual({
      kind: 'push-zone-stale',
      cause:
        'terminal lobby keeps a stale time zone: it was told UTC+02:00 when it last read its options, its zone is UTC+01:00 now, and it refused to read them again (CHECK answered -1002 at 2026-10-25 02:00:00 +00:00): its punches are stamped in the old offset',
      fix: 'restart the terminal (it reads its options when it starts), or set its time zone on its menu (System > Date Time) to UTC+01:00',
    });
    const lobby = stale.status.terminals.find((t) => t.name === 'lobby')!;
    expect(lobby.push?.zone).toMatchObject({ told: 120, now: 60, check: 'failed' });
    expect(lobby.problem).toEqual({ cause: stale.alert!.cause, fix: stale.alert!.fix });
    expect(formatStatus(stale.status)).toContain(`! ${stale.alert!.cause}: ${stale.alert!.fix}`);
    const page = renderPage(stale.status, { version: 't', uptimeSeconds: 1, zone: 'UTC', refreshSeconds: 30 });
    expect(page).toContain('keeps a stale time zone');
    expect(page).toContain('restart the terminal');
    expect(stale.checked).toMatchObject({ status: 'warn', detail: stale.alert!.cause, fix: stale.alert!.fix });

    // Restarted: it reads its options and is told the new offset; nothing stale is said any more.
    expect(await options()).toBe('1');
    await waitFor(online, 5000, 'the option fetch recorded');
    const mended = said();
    expect(mended.alert).toBeUndefined();
    expect(mended.status.terminals.find((t) => t.name === 'lobby')!.problem).toBeNull();
    expect(mended.checked.status).toBe('pass');
  });

  it('a journal from before the zones were kept tells no zone (check reads it while an older daemon runs)', () => {
    const store = {
      zone: () => {
        throw new Error('no such table: push_zones');
      },
      latestCommand: () => undefined,
    };
    expect(pushZoneOf(store, { name: 'lobby', serial: SN }, Date.UTC(2026, 9, 25))).toBeNull();
    const broken = {
      ...store,
      zone: () => {
        throw new Error('disk I/O error');
      },
    };
    expect(() => pushZoneOf(broken, { name: 'lobby', serial: SN }, Date.UTC(2026, 9, 25))).toThrow('disk I/O error');
  });
});
