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
  /**
   * Rows as real face-terminal firmware writes them (hikvision-isapi.md, adms-security-push.md):
   * pictureURL, FaceRect and mask on face passes, cardType and userType on every pass, card
   * numbers of 20 digits, door events with currentVerifyMode "invalid", and now and then a 5/9
   * row (a card without the right to pass) with a card and no employee.
   */
  realFirmware?: boolean;
  seed?: number;
}

/** A card number of 20 digits, as some readers report them. */
function longCard(rnd: () => number): string {
  const part = () => String(Math.floor(rnd() * 1e10)).padStart(10, '0');
  return `${1 + Math.floor(rnd() * 9)}${part()}${part()}`.slice(0, 20);
}

/** The fields real firmware adds to a pass (a face pass has its picture and where the face was). */
function passExtra(rnd: () => number, minor: number, at: string): Record<string, unknown> {
  const face = minor === 75 || minor === 77;
  const stamp = at.slice(0, 19).replace(/[-:T]/g, '');
  return {
    cardType: 1,
    userType: 'normal',
    cardReaderNo: 1,
    type: 0,
    ...(face
      ? {
          pictureURL: `http://192.168.1.64/LOCALS/pic/acsLinkCap/${stamp.slice(0, 8)}_00/${stamp.slice(8)}_${Math.floor(rnd() * 99999)}_0.jpeg@WEB000000000${Math.floor(rnd() * 999)}`,
          FaceRect: { height: 0.3, width: 0.168, x: 0.402, y: 0.275 },
          mask: rnd() < 0.1 ? 'yes' : 'no',
          picturesNumber: 1,
        }
      : {}),
  };
}

export const employeeNoOf = (i: number) => String(100_000 + i);

/**
 * The event a faulty firmware wrote once (issue 23): a pass numbered 2,999,999,999 and dated
 * 2037, among events numbered in the thousands. Its time carries no offset: add the device's.
 */
export const BAD_EVENT: NewSimEvent = {
  serialNo: 2_999_999_999,
  major: 5,
  minor: 75,
  employeeNoString: '100001',
  name: 'Person 100001',
  time: '2037-06-01T08:00:00',
  currentVerifyMode: 'face',
  attendanceStatus: 'checkIn',
  doorNo: 1,
};

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
    const real = o.realFirmware === true;
    if (real && rnd() < 0.05) {
      // A card without the right to pass: a card number, nobody's employee number.
      out.push({
        major: 5,
        minor: 9,
        time: at(t),
        cardNo: longCard(rnd),
        currentVerifyMode: 'cardOrFace',
        doorNo: 1,
        extra: { cardType: 1, cardReaderNo: 1, type: 0 },
      });
    }
    out.push({
      major: 5,
      minor,
      time: at(t),
      employeeNoString: who,
      name: `Person ${who}`,
      ...(usesCard ? { cardNo: real ? longCard(rnd) : `00${who}` } : {}),
      currentVerifyMode: mode,
      attendanceStatus: STATES[Math.floor(rnd() * STATES.length)]!,
      doorNo: 1,
      ...(real ? { extra: passExtra(rnd, minor, at(t)) } : {}),
    });
    if (o.noise) {
      const door = real ? { currentVerifyMode: 'invalid', extra: { cardReaderNo: 0, type: 0 } } : {};
      out.push({ major: 5, minor: 21, time: at(t), doorNo: 1, ...door });
      out.push({ major: 5, minor: 22, time: at(t + 1000), doorNo: 1, ...door });
      if (rnd() < 0.02) out.push({ major: 3, minor: 112, time: at(t + 1000) });
    }
  }
  return out;
}
