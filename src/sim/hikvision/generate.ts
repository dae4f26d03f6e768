import { seededRandom } from '../../util/seeded-random.js';
import { isoAtOffset } from './event-log.js';
import type { NewSimEvent } from './types.js';

/** Authentication passes and how often each appears (faces most, then fingers, then cards). */
const PASSES: readonly [number, string, number][] = [
  [75, 'face', 0.45],
  [38, 'fp', 0.25],
  [1, 'card', 0.12],
  [69, 'employeeNoAndFp', 0.03],
  [77, 'employeeNoAndFace', 0.03],
  [101, 'employeeNoAndPw', 0.02],
  [2, 'cardAndPw', 0.02],
  [40, 'cardAndFp', 0.02],
  [43, 'cardAndFpAndPw', 0.02],
  [46, 'fpAndPw', 0.02],
  [72, 'employeeNoAndFpAndPw', 0.01],
  [16, 'multiFactor', 0.01],
];
const STATES = ['checkIn', 'checkOut', 'breakOut', 'breakIn', 'overtimeIn', 'overtimeOut', 'undefined'];

export interface GenerateOptions {
  /** Authentication passes to make; door events and failures come on top. */
  passes: number;
  users?: number;
  /** Time of the first event (epoch ms) and seconds between passes. */
  startMs: number;
  gapSeconds?: number;
  utcOffset: string;
  /** Door events (5/21, 5/22), failures (5/39, 5/76) and operation events (major 3) around the passes. */
  noise?: boolean;
  seed?: number;
}

export const employeeNoOf = (i: number) => String(100_000 + i);

/**
 * A log as a device writes it: each pass (one second apart at least, so no two fall on the same
 * second) with the door events it causes, and now and then a failed try before it.
 */
export function generateEvents(o: GenerateOptions): NewSimEvent[] {
  const rnd = seededRandom(o.seed ?? 1);
  const users = Math.max(1, o.users ?? 50);
  const gap = Math.max(1, o.gapSeconds ?? 7);
  const out: NewSimEvent[] = [];
  const at = (ms: number) => isoAtOffset(ms, o.utcOffset);
  for (let i = 0; i < o.passes; i++) {
    const t = o.startMs + i * gap * 1000;
    const who = employeeNoOf(Math.floor(rnd() * users));
    if (o.noise && rnd() < 0.15) {
      // A failed try first: a fingerprint that did not match (no one identified), or a face
      // that failed (some firmware names who it thought it saw).
      out.push(
        rnd() < 0.5
          ? { major: 5, minor: 39, time: at(t), doorNo: 1, currentVerifyMode: 'fp' }
          : { major: 5, minor: 76, time: at(t), employeeNoString: who, doorNo: 1, currentVerifyMode: 'face' },
      );
    }
    let pick = rnd();
    let pass = PASSES[0]!;
    for (const p of PASSES) {
      if (pick < p[2]) {
        pass = p;
        break;
      }
      pick -= p[2];
    }
    const [minor, mode] = pass;
    const usesCard = mode.toLowerCase().includes('card');
    out.push({
      major: 5,
      minor,
      time: at(t),
      employeeNoString: who,
      name: `Person ${who}`,
      ...(usesCard ? { cardNo: `00${who}` } : {}),
      currentVerifyMode: mode,
      attendanceStatus: STATES[Math.floor(rnd() * STATES.length)]!,
      doorNo: 1,
    });
    if (o.noise) {
      out.push({ major: 5, minor: 21, time: at(t), doorNo: 1 });
      out.push({ major: 5, minor: 22, time: at(t + 1000), doorNo: 1 });
      if (rnd() < 0.02) out.push({ major: 3, minor: 112, time: at(t + 1000) });
    }
  }
  return out;
}
