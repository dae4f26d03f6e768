import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
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
      'DEVICELOG ID  TERMINAL  CODE  LOG TIME             STATE      ATTEMPTS  LAST ANSWER',
      'plant-a-6     gate-1    1043  2026-11-22 08:00:00  pending           0',
      'plant-a-5     gate-2    1044  2026-11-22 07:00:00  pending           0',
      'plant-a-4     gate-2    1042  2026-11-21 17:00:00  pending           0',
      'plant-a-3     gate-1    1042  2026-11-21 08:00:00  delivered         3  Attendance added successfully',
      'plant-a-2     gate-1    1043  2026-11-20 08:01:00  delivered         1  Attendance added successfully',
      'plant-a-1     gate-1    1042  2026-11-20 08:00:00  pending           0',
    ]);
    expect(r.err).toBe('');
  });

  it('filters by code and by a range of days or times (the terminal clock), and says when the limit cut the list', () => {
    fill();
    expect(punchgate(['punches', '--code', '1042', '--since', '2026-11-21']).lines.slice(1)).toEqual([
      'plant-a-4     gate-2    1042  2026-11-21 17:00:00  pending           0',
      'plant-a-3     gate-1    1042  2026-11-21 08:00:00  delivered         3  Attendance added successfully',
    ]);
    expect(
      punchgate(['punches', '--code', '1043,1044', '--until', '2026-11-22 07:00']).lines.map((l) => l.slice(0, 12)),
    ).toEqual(['DEVICELOG ID', 'plant-a-5   ', 'plant-a-2   ']);
    expect(
      punchgate(['punches', '--since', '2026-11-20 08:01', '--until', '2026-11-21']).lines.map((l) => l.slice(0, 9)),
    ).toEqual(['DEVICELOG', 'plant-a-4', 'plant-a-3', 'plant-a-2']);
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
    expect(punchgate(['punches', '--state', 'undelivered']).lines.map((l) => l.slice(0, 9))).toEqual([
      'DEVICELOG',
      'plant-a-6',
      'plant-a-5',
      'plant-a-4',
      'plant-a-1',
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
      'DEVICELOG ID  TERMINAL  CODE  LOG TIME             STATE      ATTEMPTS  LAST ANSWER',
      'plant-a-3     gate-1    1042  2026-11-21 08:00:00  delivered         3  Attendance added successfully',
      '    2026-11-22 12:00:00 +00:00  attempt 1: refused, tried again later: Unknown biometric code 1042\\x1b[2J\\u202e',
      '    2026-11-22 13:00:00 +00:00  attempt 2: refused, tried again later: Employee 1042 is disabled: punch refused',
      '    2026-11-22 14:00:00 +00:00  attempt 3: delivered: Attendance added successfully',
      'plant-a-1     gate-1    1042  2026-11-20 08:00:00  pending           0',
      '    not answered yet',
    ]);
    expect(r.out).not.toContain('\u001b');
    expect(r.out).not.toContain('\u202e');
    const json = punchgate(['punches', '--history', '--json', '--code', '1042', '--terminal', 'gate-1']);
    const first = JSON.parse(json.lines[0]!) as {
      devicelogId: string;
      history: { outcome: string; message: string }[];
    };
    expect(first.devicelogId).toBe('plant-a-3');
    expect(first.history.map((h) => h.outcome)).toEqual(['rejected', 'rejected', 'delivered']);
    expect(first.history[0]!.message).toBe('Unknown biometric code 1042\u001b[2J\u202e');
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
