import type { Punch } from '../../src/punch.js';

const START_MS = Date.UTC(2024, 0, 2, 6, 0, 0);

/** The serial number of bench push terminal `i` (the push benches' terminals and their config). */
export const pushSerialOf = (i: number) => `BENCHPUSH${String(i).padStart(4, '0')}`;

/** `YYYY-MM-DD HH:mm:ss` of a UTC instant (synthetic wall clock: no zone involved). */
export function logTimeAt(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * Punch number `i` of a deterministic synthetic log: `codes` employees punching in turn,
 * 7 s apart, from 2024-01-02 06:00:00 (in the past, so nothing is quarantined).
 */
export function syntheticPunch(i: number, terminal = 'bench-1', codes = 500): Punch {
  return {
    terminal,
    device: 'BENCH0001',
    biometricCode: String(1000 + (i % codes)),
    logTime: logTimeAt(START_MS + i * 7000),
    verifyType: 1,
    punchState: i % 2,
  };
}

/** Punches [from, from + count) of the synthetic log. */
export function syntheticPunches(from: number, count: number, terminal?: string): Punch[] {
  const out: Punch[] = new Array<Punch>(count);
  for (let k = 0; k < count; k++) out[k] = syntheticPunch(from + k, terminal);
  return out;
}

/** The synthetic log in batches of `size` (last one shorter), generated lazily. */
export function* syntheticBatches(total: number, size: number, terminal?: string): Generator<Punch[]> {
  for (let from = 0; from < total; from += size) yield syntheticPunches(from, Math.min(size, total - from), terminal);
}

/**
 * `n` waiting punches from the terminals t1..tN in turn (a shift change), one a second from a day
 * ago: later than any delivered history the benches build. `offset` continues an earlier call's run.
 */
export function backlogPunches(n: number, terminals: number, offset = 0): Punch[] {
  const start = Date.now() - 86_400_000;
  return Array.from({ length: n }, (_, i) => ({
    terminal: `t${(i % terminals) + 1}`,
    device: `LIVE${i % terminals}`,
    biometricCode: String(2000 + (i % 300)),
    logTime: logTimeAt(start + (offset + i) * 1000),
  }));
}
