/**
 * Deterministic test data for the simulator: the same counts and seed always give the
 * same users and punches, so tests can compare what a client downloaded with what
 * the terminal holds.
 */
import { addSeconds } from './terminal-clock.js';
import type { SimPunch, SimTemplate, SimUser } from './types.js';
import { seededRandom } from '../../util/seeded-random.js';

export interface GenerateSpec {
  users: number;
  punches: number;
  /** First punch time (default 2024-01-02 08:00:00). */
  startTime?: string;
  seed?: number;
}

const FIRST_NAMES = ['Ana', 'Ben', 'Chen', 'Dara', 'Eli', 'Femi', 'Gita', 'Hugo', 'Ines', 'Jon', 'Kofi', 'Lena'];

/**
 * Users get numeric ids (UDP layouts carry the user id as a number) that do not collide
 * with `existing`; uids continue after the highest existing uid.
 */
export function generateUsers(count: number, existing: readonly SimUser[], seed = 1): SimUser[] {
  const rnd = seededRandom(seed);
  const taken = new Set(existing.map((u) => u.userId));
  let uid = existing.reduce((m, u) => Math.max(m, u.uid), 0);
  let next = 1;
  const out: SimUser[] = [];
  while (out.length < count) {
    const userId = String(next++);
    if (taken.has(userId)) continue;
    uid += 1;
    const first = FIRST_NAMES[Math.floor(rnd() * FIRST_NAMES.length)] ?? 'User';
    out.push({ uid, userId, name: `${first} ${userId}`, privilege: 0, card: 0, password: '' });
  }
  return out;
}

/**
 * Punches of `users` in time order from `startTime`, a few seconds to a few minutes apart,
 * alternating in/out per user.
 */
export function generatePunches(
  count: number,
  users: readonly SimUser[],
  spec: { startTime?: string; seed?: number } = {},
): SimPunch[] {
  if (count > 0 && users.length === 0) throw new RangeError('cannot generate punches without users');
  const rnd = seededRandom((spec.seed ?? 1) ^ 0x9e3779b9);
  const lastState = new Map<string, number>();
  let time = spec.startTime ?? '2024-01-02 08:00:00';
  const out: SimPunch[] = [];
  for (let i = 0; i < count; i++) {
    const user = users[Math.floor(rnd() * users.length)] as SimUser;
    const state = lastState.get(user.userId) === 0 ? 1 : 0;
    lastState.set(user.userId, state);
    out.push({ userId: user.userId, logTime: time, verifyType: rnd() < 0.8 ? 1 : 2, state });
    time = addSeconds(time, 5 + Math.floor(rnd() * 240));
  }
  return out;
}

/**
 * Stand-in fingerprint templates: `perUser` fingers (0, 1, ...) per user, 400-1200 seeded random
 * bytes each. They are not real minutiae; they only need to travel and compare byte for byte.
 */
export function generateTemplates(users: readonly SimUser[], perUser: number, seed = 1): SimTemplate[] {
  if (!Number.isInteger(perUser) || perUser < 0 || perUser > 10)
    throw new RangeError(`fingers per user: 0-10, not ${perUser}`);
  const rnd = seededRandom(seed ^ 0x5bd1e995);
  const out: SimTemplate[] = [];
  for (const u of users) {
    for (let finger = 0; finger < perUser; finger++) {
      const template = Buffer.alloc(400 + Math.floor(rnd() * 800));
      for (let i = 0; i < template.length; i++) template[i] = Math.floor(rnd() * 256);
      out.push({ userId: u.userId, finger, valid: 1, template });
    }
  }
  return out;
}
