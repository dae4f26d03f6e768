import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { hashedPunchId } from '../../src/journal/punch-id.js';
import type { Punch } from '../../src/punch.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * `punchgate punches` as a site admin runs it: a child process on a real journal, newest first
 * with a header, filtered by code and dates, and with `--history` every answer the HRMS gave.
 */
describe('punchgate punches', () => {
  let tmp: ReturnType<typeof tempDir>;
  const clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  beforeEach(() => {
    tmp = tempDir();
    clock.set(Date.UTC(2026, 10, 22, 12, 0, 0));
    writeFileSync(
      tmp.path('punchgate.yaml'),
      'site: plant-a\njournal:\n  path: journal.db\nhrms:\n  baseUrl: https://hr.example.com\nstatus:\n  listen: false\n',
    );
  });
  afterEach(() => tmp.cleanup());

  const open = () => Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner', clock });
  const punch = (terminal: string, code: string, logTime: string): Punch => ({
    terminal,
    biometricCode: code,
    logTime,
  });
  const punchgate = (args: string[], shell?: string) => {
    const cli = ['dist/punchgate.js', '--config', tmp.path('punchgate.yaml'), ...args];
    const r = shell
      ? spawnSync(
          'bash',
          ['-c', `set -o pipefail; "${process.execPath}" ${cli.map((a) => `'${a}'`).join(' ')} ${shell}`],
          {
            encoding: 'utf8',
            env: { ...process.env, TZ: 'UTC' },
          },
        )
      : spawnSync(process.execPath, cli, { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
    return { status: r.status, out: r.stdout, err: r.stderr, lines: r.stdout.split('\n').filter(Boolean) };
  };

  /** The devicelogIds of the six punches of fill(), by the order they were journalled (1-based). */
  const ID = [
    '',
    ...(
      [
        ['gate-1', '1042', '2026-11-20 08:00:00'],
        ['gate-1', '1043', '2026-11-20 08:01:00'],
        ['gate-1', '1042', '2026-11-21 08:00:00'],
        ['gate-2', '1042', '2026-11-21 17:00:00'],
        ['gate-2', '1044', '2026-11-22 07:00:00'],
        ['gate-1', '1043', '2026-11-22 08:00:00'],
      ] as const
    ).map(([terminal, biometricCode, logTime]) =>
      hashedPunchId({ site: 'plant-a', terminal, device: '', biometricCode, logTime }),
    ),
  ];
  const HEADER = `${'DEVICELOG ID'.padEnd(ID[1]!.length)}  TERMINAL  CODE  LOG TIME             DIRECTION  STATE      ATTEMPTS  LAST ANSWER`;

  /** Six punches; 1042 at gate-1 refused twice (once with an answer full of escape codes), then taken. */
  function fill(): void {
    const j = open();
    try {
      j.ingest([
        punch('gate-1', '1042', '2026-11-20 08:00:00'),
        punch('gate-1', '1043', '2026-11-20 08:01:00'),
        punch('gate-1', '1042', '2026-11-21 08:00:00'),
        punch('gate-2', '1042', '2026-11-21 17:00:00'),
        punch('gate-2', '1044', '2026-11-22 07:00:00'),
        punch('gate-1', '1043', '2026-11-22 08:00:00'),
      ]);
      const ids = (code: string, logTime: string) =>
        j.queries.list({}).find((p) => p.biometricCode === code && p.logTime === logTime)!.id;
      const refused = ids('1042', '2026-11-21 08:00:00');
      const taken = ids('1043', '2026-11-20 08:01:00');
      const first = j.claim(10);
      j.settle([
        { id: refused, kind: 'rejected', message: 'Unknown biometric code 1042\u001b[2J\u202e' },
        { id: taken, kind: 'delivered', message: 'Attendance added successfully' },
        ...first.filter((p) => p.id !== refused && p.id !== taken).map((p) => ({ id: p.id, kind: 'unknown' as const })),
      ]);
      clock.advance(3_600_000);
      expect(j.claim(10, { ignoreBackoff: true }).map((p) => p.id)).toContain(refused);
      j.settle([{ id: refused, kind: 'rejected', message: 'Employee 1042 is disabled: punch refused' }]);
      j.release(j.queries.list({ state: 'inflight' }).map((p) => p.id));
      clock.advance(3_600_000);
      j.claim(10, { ignoreBackoff: true });
      j.settle([{ id: refused, kind: 'delivered', message: 'Attendance added successfully' }]);
      j.release(j.queries.list({ state: 'inflight' }).map((p) => p.id));
    } finally {
      j.close();
    }
  }

  it('lists newest first under a header', () => {
    fill();
    const r = punchgate(['punches']);
    expect(r.status, r.err).toBe(0);
    expect(r.lines).toEqual([
      HEADER,
      `${ID[6]}  gate-1    1043  2026-11-22 08:00:00  -          pending           0`,
      `${ID[5]}  gate-2    1044  2026-11-22 07:00:00  -          pending           0`,
      `${ID[4]}  gate-2    1042  2026-11-21 17:00:00  -          pending           0`,
      `${ID[3]}  gate-1    1042  2026-11-21 08:00:00  -          delivered         3  Attendance added successfully`,
      `${ID[2]}  gate-1    1043  2026-11-20 08:01:00  -          delivered         1  Attendance added successfully`,
      `${ID[1]}  gate-1    1042  2026-11-20 08:00:00  -          pending           0`,
    ]);
    expect(r.err).toBe('');
  });

  it('filters by code and by a range of days or times (the terminal clock), and says when the limit cut the list', () => {
    fill();
    expect(punchgate(['punches', '--code', '1042', '--since', '2026-11-21']).lines.slice(1)).toEqual([
      `${ID[4]}  gate-2    1042  2026-11-21 17:00:00  -          pending           0`,
      `${ID[3]}  gate-1    1042  2026-11-21 08:00:00  -          delivered         3  Attendance added successfully`,
    ]);
    expect(
      punchgate(['punches', '--code', '1043,1044', '--until', '2026-11-22 07:00']).lines.map((l) => l.slice(0, 12)),
    ).toEqual(['DEVICELOG ID', ID[5], ID[2]].map((v) => v!.slice(0, 12)));
    expect(
      punchgate(['punches', '--since', '2026-11-20 08:01', '--until', '2026-11-21']).lines.map((l) => l.split('  ')[0]),
    ).toEqual(['DEVICELOG ID', ID[4], ID[3], ID[2]]);
    expect(punchgate(['punches', '--code', '9999']).lines).toEqual(['no punches match']);
    const limited = punchgate(['punches', '--limit', '2']);
    expect(limited.lines).toHaveLength(3);
    expect(limited.err).toBe('showing the newest 2 of 6 punches: --limit 6 shows all\n');
    const bad = punchgate(['punches', '--since', '2026-02-30']);
    expect(bad.status).not.toBe(0);
    expect(bad.err).toContain('must be a date such as 2026-11-22, or 2026-11-22 08:00 (the terminal clock)');
  });

  it('--count prints only how many match, without the limit; --state undelivered is every state but delivered', () => {
    fill();
    // A claim left by a daemon killed mid-request: in flight is not delivered either.
    const j = open();
    try {
      j.claim(1);
    } finally {
      j.close();
    }
    expect(punchgate(['punches', '--count']).out).toBe('6\n');
    expect(punchgate(['punches', '--count', '--limit', '1']).out).toBe('6\n');
    expect(punchgate(['punches', '--state', 'delivered', '--count']).out).toBe('2\n');
    const undelivered = punchgate(['punches', '--state', 'undelivered', '--count']);
    expect(undelivered.status, undelivered.err).toBe(0);
    expect(undelivered).toMatchObject({ out: '4\n', err: '' });
    expect(punchgate(['punches', '--state', 'undelivered', '--count', '--terminal', 'gate-2']).out).toBe('2\n');
    const listed = punchgate(['punches', '--state', 'undelivered', '--json']).lines.map((l) => {
      const p = JSON.parse(l) as { biometricCode: string; logTime: string };
      return `${p.biometricCode} ${p.logTime}`;
    });
    expect(listed).toEqual([
      '1043 2026-11-22 08:00:00',
      '1044 2026-11-22 07:00:00',
      '1042 2026-11-21 17:00:00',
      '1042 2026-11-20 08:00:00',
    ]);
    expect(punchgate(['punches', '--state', 'undelivered']).out).toContain('inflight');
    expect(punchgate(['punches', '--code', '9999', '--count']).out).toBe('0\n');
    const bad = punchgate(['punches', '--state', 'sent', '--count']);
    expect(bad.status).toBe(78);
    expect(bad.err).toContain('--state: must be one of');
  });

  it("--history shows each attempt's HRMS answer, control characters escaped", () => {
    fill();
    const r = punchgate(['punches', '--history', '--terminal', 'gate-1', '--code', '1042']);
    expect(r.status, r.err).toBe(0);
    expect(r.lines).toEqual([
      HEADER,
      `${ID[3]}  gate-1    1042  2026-11-21 08:00:00  -          delivered         3  Attendance added successfully`,
      '    2026-11-22 12:00:00 +00:00  attempt 1: refused, tried again later: Unknown biometric code 1042\\x1b[2J\\u202e',
      '    2026-11-22 13:00:00 +00:00  attempt 2: refused, tried again later: Employee 1042 is disabled: punch refused',
      '    2026-11-22 14:00:00 +00:00  attempt 3: delivered: Attendance added successfully',
      `${ID[1]}  gate-1    1042  2026-11-20 08:00:00  -          pending           0`,
      '    not answered yet',
    ]);
    expect(r.out).not.toContain('\u001b');
    expect(r.out).not.toContain('\u202e');
    const json = punchgate(['punches', '--history', '--json', '--code', '1042', '--terminal', 'gate-1']);
    const first = JSON.parse(json.lines[0]!) as {
      devicelogId: string;
      history: { outcome: string; message: string }[];
    };
    expect(first.devicelogId).toBe(ID[3]);
    expect(first.history.map((h) => h.outcome)).toEqual(['rejected', 'rejected', 'delivered']);
    expect(first.history[0]!.message).toBe('Unknown biometric code 1042\u001b[2J\u202e');
  });

  it('--by-delivery: the last deliveries, the most recently delivered first, with when (not by log time)', () => {
    fill();
    // The oldest punch by log time is delivered last (15:00, after 12:00 and 14:00 in fill()).
    const j = open();
    try {
      clock.advance(3_600_000);
      const oldest = j.queries.list({}).find((p) => p.logTime === '2026-11-20 08:00:00')!.id;
      expect(j.claim(10, { ignoreBackoff: true }).map((p) => p.id)).toContain(oldest);
      j.settle([{ id: oldest, kind: 'delivered', message: 'Attendance added successfully' }]);
      j.release(j.queries.list({ state: 'inflight' }).map((p) => p.id));
    } finally {
      j.close();
    }
    const cells = (l: string) => l.split(/ {2,}/);
    const r = punchgate(['punches', '--by-delivery']);
    expect(r.status, r.err).toBe(0);
    expect(r.lines.map(cells)).toEqual([
      ['DEVICELOG ID', 'TERMINAL', 'CODE', 'LOG TIME', 'DIRECTION', 'DELIVERED', 'ATTEMPTS', 'LAST ANSWER'],
      [
        ID[1],
        'gate-1',
        '1042',
        '2026-11-20 08:00:00',
        '-',
        '2026-11-22 15:00:00 +00:00',
        '1',
        'Attendance added successfully',
      ],
      [
        ID[3],
        'gate-1',
        '1042',
        '2026-11-21 08:00:00',
        '-',
        '2026-11-22 14:00:00 +00:00',
        '3',
        'Attendance added successfully',
      ],
      [
        ID[2],
        'gate-1',
        '1043',
        '2026-11-20 08:01:00',
        '-',
        '2026-11-22 12:00:00 +00:00',
        '1',
        'Attendance added successfully',
      ],
    ]);
    // The header lines up with the rows (ATTEMPTS ends where the counts end).
    expect(r.lines[0]!.indexOf('ATTEMPTS') + 'ATTEMPTS'.length).toBe(r.lines[1]!.indexOf('1  Attendance') + 1);
    const last2 = punchgate(['punches', '--by-delivery', '--limit', '2']);
    expect(last2.lines.slice(1).map((l) => cells(l)[0])).toEqual([ID[1], ID[3]]);
    expect(last2.err).toBe('showing the last 2 of 3 delivered punches: --limit 3 shows all\n');
    const json = punchgate(['punches', '--by-delivery', '--json', '--terminal', 'gate-1', '--code', '1042']);
    expect(json.lines.map((l) => (JSON.parse(l) as { devicelogId: string }).devicelogId)).toEqual([ID[1], ID[3]]);
    const bad = punchgate(['punches', '--by-delivery', '--state', 'pending']);
    expect(bad.status).toBe(78);
    expect(bad.err).toContain('--by-delivery lists delivered punches: leave out --state pending');
  });

  it('punches retry --code and --terminal queue again only the refused punches asked for', () => {
    const j = open();
    try {
      j.ingest([
        punch('gate-1', '1042', '2026-11-20 08:00:00'),
        punch('gate-1', '1043', '2026-11-20 08:01:00'),
        punch('gate-1', '1042', '2026-11-21 08:00:00'),
        punch('gate-2', '1042', '2026-11-21 17:00:00'),
        punch('gate-2', '1044', '2026-11-22 07:00:00'),
        punch('gate-1', '1043', '2026-11-22 08:00:00'),
      ]);
      j.settle(j.claim(10).map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'Unknown biometric code' })));
    } finally {
      j.close();
    }
    const states = () =>
      punchgate(['punches', '--json'])
        .lines.map((l) => JSON.parse(l) as { terminal: string; biometricCode: string; logTime: string; state: string })
        .filter((p) => p.state === 'pending')
        .map((p) => `${p.terminal} ${p.biometricCode} ${p.logTime}`)
        .sort();
    const one = punchgate(['punches', 'retry', '--code', '1042', '--terminal', 'gate-1']);
    expect(one.status, one.err).toBe(0);
    expect(one.out).toBe('2 rejected punches of terminal gate-1 with code 1042 queued again\n');
    expect(states()).toEqual(['gate-1 1042 2026-11-20 08:00:00', 'gate-1 1042 2026-11-21 08:00:00']);
    const more = punchgate(['punches', 'retry', '--code', '1043,1044']);
    expect(more.out).toBe('3 rejected punches with code 1043, 1044 queued again\n');
    expect(states()).toHaveLength(5);
    // The one left: gate-2's 1042, still refused.
    const left = punchgate(['punches', '--state', 'rejected']);
    expect(left.lines.slice(1).map((l) => l.split(/ {2,}/).slice(1, 3))).toEqual([['gate-2', '1042']]);
    // One punch is one punch ("1 rejected punches" read wrong).
    const last = punchgate(['punches', 'retry']);
    expect(last.out).toBe('1 rejected punch queued again\n');
  });

  it('keeps refused answers as long as journal.retentionDays, no longer', () => {
    fill();
    const j = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'owner', clock, retentionDays: 30 });
    try {
      const p = j.history.list({ codes: ['1042'], terminal: 'gate-1', limit: 1 });
      expect(j.history.attemptsOf(p).get(p[0]!.id)).toHaveLength(3);
      clock.advance(31 * 86_400_000);
      j.prune();
      const after = j.history.attemptsOf(j.history.list({ codes: ['1042'], terminal: 'gate-1', limit: 1 }));
      // The refusals are gone with the delivered punch's own age; nothing else is kept about it.
      expect([...after.values()].flat().filter((a) => a.outcome === 'rejected')).toEqual([]);
    } finally {
      j.close();
    }
  });

  it('piped into head, a long listing ends quietly: no stack trace, exit 0', () => {
    const j = open();
    try {
      const many: Punch[] = [];
      for (let i = 0; i < 6000; i++) {
        const s = i % 60;
        const m = Math.floor(i / 60) % 60;
        const h = Math.floor(i / 3600);
        many.push(
          punch(
            'gate-1',
            String(1000 + (i % 97)),
            `2026-11-21 ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`,
          ),
        );
      }
      j.ingest(many);
    } finally {
      j.close();
    }
    for (const args of [
      ['punches', '--limit', '6000'],
      ['punches', '--limit', '6000', '--json'],
      ['punches', 'export'],
    ]) {
      const r = punchgate(args, '| head -1');
      expect(r.err, args.join(' ')).toBe('');
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.lines).toHaveLength(1);
    }
  });
});
