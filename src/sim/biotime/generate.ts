import type { NewTransaction } from './store.js';
import { wallClockAt } from '../../punch.js';
import { seededRandom } from '../../util/seeded-random.js';

/** Serials of the simulated terminals behind the server (ZKTeco serial numbers look so). */
export const SIM_TERMINALS = [
  { sn: 'CQZ7232160001', alias: 'Main entrance', area: 'Head office' },
  { sn: 'CQZ7232160002', alias: 'Warehouse gate', area: 'Warehouse' },
  { sn: 'BOCK201960155', alias: 'Canteen', area: 'Head office' },
] as const;

export const empCodeOf = (i: number) => String(1001 + i);

export interface GenerateOptions {
  count: number;
  users: number;
  /** Epoch ms of the first punch; each next one a few seconds later. */
  startMs: number;
  stepMs?: number;
  /** Punches reach the server this long after they are made. */
  uploadLagMs?: number;
  timeZone?: string;
  seed?: number;
}

/** One transaction as BioTime 8.x lists it (every field of the API manual's example). */
export function transaction(
  o: { emp: string; atMs: number; terminal: (typeof SIM_TERMINALS)[number]; state: number; verify: number },
  lagMs: number,
  timeZone?: string,
): NewTransaction {
  return {
    emp_code: o.emp,
    punch_time: wallClockAt(o.atMs, timeZone),
    punch_state: String(o.state),
    verify_type: o.verify,
    work_code: '0',
    terminal_sn: o.terminal.sn,
    terminal_alias: o.terminal.alias,
    area_alias: o.terminal.area,
    longitude: null,
    latitude: null,
    gps_location: null,
    mobile: null,
    source: 1,
    purpose: 9,
    crc: '',
    is_attendance: 1,
    reserved: null,
    upload_time: wallClockAt(o.atMs + lagMs, timeZone),
    sync_status: 0,
    sync_time: null,
    emp: null,
    terminal: 1,
  };
}

/** `count` punches from `users` people over the simulated terminals, in time order. */
export function generateTransactions(o: GenerateOptions): NewTransaction[] {
  const rnd = seededRandom(o.seed ?? 1);
  const out: NewTransaction[] = [];
  const step = o.stepMs ?? 7_000;
  for (let i = 0; i < o.count; i++) {
    const who = Math.floor(rnd() * o.users);
    out.push(
      transaction(
        {
          emp: empCodeOf(who),
          atMs: o.startMs + i * step,
          terminal: SIM_TERMINALS[Math.floor(rnd() * SIM_TERMINALS.length)]!,
          state: rnd() < 0.5 ? 0 : 1,
          verify: [1, 15, 4][Math.floor(rnd() * 3)]!,
        },
        o.uploadLagMs ?? 2_000,
        o.timeZone,
      ),
    );
  }
  return out;
}

/**
 * Rows with hostile text, as a tampered server (or one that stores what any terminal sends)
 * may list them: control characters and an overlong code, markup and bidirectional overrides in
 * the names, a time that is no time, numbers where text goes. None may crash punchgate, blind its
 * cursor or reach the page unescaped.
 */
export function hostileTransactions(atMs: number, timeZone?: string): NewTransaction[] {
  const base = (emp: string, i: number) =>
    transaction({ emp, atMs: atMs + i * 1000, terminal: SIM_TERMINALS[0], state: 0, verify: 1 }, 1000, timeZone);
  return [
    { ...base('7\u0000\u001b[31m', 0) },
    { ...base('x'.repeat(5000), 1) },
    { ...base('2001', 2), terminal_alias: '<script>alert(1)</script>\u202e', area_alias: '"><img src=x>' },
    { ...base('2002', 3), punch_time: 'yesterday, about noon' },
    { ...base('2003', 4), terminal_sn: 'SN\r\nX-Injected: 1' },
    { ...base('2004', 5), extra: { punch_state: { nested: true }, verify_type: 'face' } },
  ];
}
