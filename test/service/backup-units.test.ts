import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';
import { requireTool, section, verifyUnits } from './unit-file.js';

const read = (p: string) => readFileSync(join(process.cwd(), p), 'utf8');
const SERVICE = read('contrib/systemd/punchgate-backup.service');
const TIMER = read('contrib/systemd/punchgate-backup.timer');
const MAIN = read('systemd/punchgate.service');

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const one = (text: string, sect: string, key: string) => {
  const v = section(text, sect).filter(([k]) => k === key);
  if (v.length !== 1) throw new Error(`${key}= appears ${v.length} times in [${sect}]`);
  return v[0]![1];
};

describe('contrib/systemd: the nightly backup', () => {
  const verify = (service: string, timer: string) =>
    verifyUnits({ 'punchgate-backup.service': service, 'punchgate-backup.timer': timer }, (c) => cleanups.push(c));

  it('passes systemd-analyze verify without a single warning, and a mistake in either unit is reported', () => {
    requireTool('systemd-analyze');
    const r = verify(SERVICE, TIMER);
    expect(r.findings, r.output).toEqual([]);
    expect(r.status, r.output).toBe(0);
    const wrong = verify(
      SERVICE.replace('Type=oneshot', 'Type=oneshot\nNicee=10'),
      TIMER.replace('04:30:00', '26:30:00'),
    );
    expect(wrong.findings.join('\n')).toContain("Unknown key 'Nicee'");
    expect(wrong.output).toContain('26:30:00');
  });

  it('runs once a night as the service user, a missed night at the next boot, after punchgate has started', () => {
    expect(one(TIMER, 'Timer', 'OnCalendar')).toMatch(/^\*-\*-\* \d{2}:\d{2}:\d{2}$/);
    expect(one(TIMER, 'Timer', 'Persistent')).toBe('true');
    expect(one(TIMER, 'Install', 'WantedBy')).toBe('timers.target');
    expect(one(SERVICE, 'Service', 'Type')).toBe('oneshot');
    expect(one(SERVICE, 'Service', 'User')).toBe(one(MAIN, 'Service', 'User'));
    expect(one(SERVICE, 'Unit', 'After')).toBe('punchgate.service');
    // The same config, and backups in a state folder of the service (writable under ProtectSystem=strict).
    const exec = one(SERVICE, 'Service', 'ExecStart');
    const config = /--config (\S+)/.exec(one(MAIN, 'Service', 'ExecStart'))![1]!;
    expect(exec).toContain(`--config ${config}`);
    const folder = /punchgate backup (\S+)/.exec(exec)![1]!;
    const states = one(SERVICE, 'Service', 'StateDirectory')
      .split(' ')
      .map((d) => `/var/lib/${d}`);
    expect(states).toContain(folder);
    expect(states).toContain(`/var/lib/${one(MAIN, 'Service', 'StateDirectory')}`);
  });

  it('runs on every night, the nights the clocks change too, in zones whose clocks change at any hour from 00:00 to 04:00', () => {
    // systemd skips a calendar time the clocks jump over (systemd issue 5595, Debian bug 1033548):
    // at 02:30, the backup of the night summer time begins was skipped in Europe and America.
    requireTool('systemd-analyze');
    const when = one(TIMER, 'Timer', 'OnCalendar');
    const nights: [zone: string, day: string][] = [
      ['Europe/Berlin', '2027-03-28'], // 02:00 -> 03:00
      ['Europe/Helsinki', '2027-03-28'], // 03:00 -> 04:00
      ['Europe/London', '2027-03-28'], // 01:00 -> 02:00
      ['America/New_York', '2027-03-14'], // 02:00 -> 03:00
      ['America/Santiago', '2027-09-05'], // 00:00 -> 01:00 (the night is looked at from 01:00)
      ['Australia/Sydney', '2026-10-04'], // 02:00 -> 03:00
      ['Europe/Berlin', '2026-10-25'], // 03:00 -> 02:00: the hour twice
    ];
    for (const [zone, day] of nights) {
      const start = zone === 'America/Santiago' ? '01:00:00' : '00:00:00';
      const r = spawnSync('faketime', [`${day} ${start}`, 'systemd-analyze', 'calendar', when], {
        env: { ...process.env, TZ: zone },
        encoding: 'utf8',
      });
      expect(r.error, 'faketime (Debian package faketime)').toBeUndefined();
      expect(r.status, r.stderr).toBe(0);
      const next = /Next elapse: \w+ (\d{4}-\d{2}-\d{2}) /.exec(r.stdout)?.[1];
      expect(next, `${zone} ${day}: ${r.stdout}`).toBe(day);
    }
  });

  it('its command, run for real: a dated backup in the folder, the newest 14 kept', async () => {
    const s = cliSandbox();
    cleanups.push(s.tmp.cleanup);
    const exec = one(SERVICE, 'Service', 'ExecStart').split(' ');
    const folder = s.tmp.path('backups');
    // Everything after the script, with this machine's folder and config in place of the box's.
    const argsFor = (dir: string) =>
      exec
        .slice(exec.indexOf('/usr/bin/punchgate') + 1)
        .map((a) => (a === '/var/lib/punchgate/backups' ? dir : a.startsWith('/etc/punchgate/') ? s.config : a));
    // 14 older nights: real backups (--keep removes only files punchgate made), named for 2020.
    const seed = s.tmp.path('seed');
    mkdirSync(seed);
    expect((await s.cli(...argsFor(seed))).status).toBe(0);
    const [made] = readdirSync(seed);
    mkdirSync(folder);
    for (let day = 1; day <= 14; day++)
      copyFileSync(
        join(seed, made!),
        join(folder, `punchgate-plant-a-202001${String(day).padStart(2, '0')}T023000Z.db`),
      );
    // (The sandbox puts its own --config first; the unit's, mapped to the same file, comes last and wins.)
    const r = await s.cli(...argsFor(folder));
    expect(r.status, r.stderr).toBe(0);
    const kept = readdirSync(folder).sort();
    expect(kept).toHaveLength(14);
    expect(kept[0]).toBe('punchgate-plant-a-20200102T023000Z.db');
    expect(kept[13]).toMatch(/^punchgate-plant-a-\d{8}T\d{6}Z\.db$/);
    expect(readFileSync(join(folder, kept[13]!)).subarray(0, 15).toString()).toBe('SQLite format 3');
  });
});
