/**
 * The planner: roster + the users a terminal holds -> the changes that make the terminal match
 * the roster. Pure (no I/O), so that a dry run shows exactly what a real run does, and so that a
 * property test can check that applying a plan and planning again changes nothing.
 *
 * Rules (issue 16): a roster user missing from the terminal is added with the smallest free uid;
 * one whose name or card differs is updated; one the roster marks inactive is removed; users the
 * roster does not mention are left alone unless `removeAbsent`. Administrators (and the enroller
 * and manager levels) are never removed without `includeAdmins`, and a privilege is never changed.
 * A user whose roster row could not be read is left alone, and with such a row whose code is
 * unreadable, nobody is removed as absent (who is absent is then not certain).
 */
import type {
  AddChange,
  Change,
  Plan,
  PlanOptions,
  RemoveChange,
  RosterEntry,
  TerminalProfile,
  TerminalUser,
  UpdateChange,
} from './types.js';
import { withoutTakenCards } from './card-holders.js';

/** Privilege levels 2 (enroller), 6 (manager), 14 (administrator), with or without the disabled bit. */
export function isAdministrator(privilege: number): boolean {
  return (privilege & 0x0e) !== 0;
}

/** The code as the terminal will store and serve it, or why it cannot be stored there. */
export function storedCode(code: string, profile: TerminalProfile): { code: string } | { error: string } {
  if (profile.numericCodes) {
    if (!/^\d+$/.test(code)) return { error: `code "${code}": this terminal stores numeric user ids only` };
    const n = Number(code);
    if (n === 0 || n > 0xffffffff) return { error: `code "${code}": this terminal stores numbers 1..4294967295` };
    return { code: String(n) };
  }
  const bytes = Buffer.byteLength(code);
  if (bytes > profile.codeBytes)
    return { error: `code "${code}" is ${bytes} bytes; this terminal holds ${profile.codeBytes}` };
  return { code };
}

/** The code of a terminal user in the same form as storedCode gives (numbers without leading zeros). */
function terminalKey(code: string, profile: TerminalProfile): string {
  return profile.numericCodes && /^\d+$/.test(code) ? String(Number(code)) : code;
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The name as the terminal keeps it: cut to its field between two characters as a reader sees
 * them (a grapheme: a letter with its accents, a family or flag emoji), never inside one, which
 * would leave half a character or a different emoji on the screen; no trailing blank.
 */
export function storedName(name: string, profile: TerminalProfile): string {
  const text = name.trim();
  const encode = profile.encodeName;
  if (encode) {
    // A legacy character set (GBK, Big5...): cut between graphemes by their bytes there. A name
    // it cannot hold comes back whole, for nameProblem to refuse.
    if (encode(text) === null) return text;
    if (encode(text)!.length <= profile.nameBytes) return text;
    let kept = '';
    for (const { segment } of GRAPHEMES.segment(text)) {
      if ((encode(kept + segment)?.length ?? Infinity) > profile.nameBytes) break;
      kept += segment;
    }
    return kept.trimEnd();
  }
  if (Buffer.byteLength(text) <= profile.nameBytes) return text;
  let kept = '';
  let bytes = 0;
  for (const { segment } of GRAPHEMES.segment(text)) {
    const size = Buffer.byteLength(segment);
    if (bytes + size > profile.nameBytes) break;
    kept += segment;
    bytes += size;
  }
  // One character wider than the whole field (an emoji sequence on an 8-byte terminal): its
  // first code points, rather than no name at all.
  if (kept.trim() === '') kept = cutAtCodePoint(text, profile.nameBytes);
  return kept.trimEnd();
}

function cutAtCodePoint(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  // A joiner or variation selector left at the end would join or restyle nothing.
  return bytes
    .subarray(0, end)
    .toString('utf8')
    .replace(/(?:\u200d|\ufe0e|\ufe0f)+$/u, '');
}

/** Why a name (from storedName) cannot be written to the terminal, or null when it can. */
export function nameProblem(name: string, profile: TerminalProfile): string | null {
  if (!profile.encodeName || profile.encodeName(name) !== null) return null;
  const bad = [...new Set(name)].filter((ch) => profile.encodeName!(ch) === null).slice(0, 5);
  return `name "${name}" has characters this terminal's character set (${profile.encoding ?? 'its encoding'}) cannot hold: ${bad.map((c) => `"${c}" (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`).join(', ')}; not written rather than shown wrong. Spell the name in characters of that set in the HRMS, or set the terminal's encoding to the one its firmware uses`;
}

/** Hands out the smallest uids not in use, from 1 up to `max`. */
export class UidPool {
  private next = 1;
  constructor(
    private readonly used: Set<number>,
    private readonly max: number,
  ) {}

  take(): number | null {
    while (this.next <= this.max && this.used.has(this.next)) this.next++;
    if (this.next > this.max) return null;
    this.used.add(this.next);
    return this.next++;
  }
}

export interface PlanGuard {
  /** Codes of roster rows that could not be read: left alone. */
  codes: ReadonlySet<string>;
  /** A bad row had no readable code: nobody is removed as absent. */
  unknown: boolean;
}

const NO_GUARD: PlanGuard = { codes: new Set(), unknown: false };

export function planTerminal(
  roster: readonly RosterEntry[],
  current: readonly TerminalUser[],
  profile: TerminalProfile,
  opts: PlanOptions,
  guard: PlanGuard = NO_GUARD,
): Plan {
  const plan: Plan = { changes: [], kept: 0, leftAlone: 0, protectedAdmins: [], refused: [], heldRemovals: null };
  const removes: RemoveChange[] = [];
  const updates: UpdateChange[] = [];
  const adds: AddChange[] = [];
  const byKey = new Map<string, TerminalUser[]>();
  // The same codes whatever their letter case: an HRMS that changes AB100 to ab100 means the
  // person the terminal holds as AB100, not a new one.
  const byFolded = new Map<string, string[]>();
  for (const u of current) {
    const k = terminalKey(u.code, profile);
    byKey.set(k, [...(byKey.get(k) ?? []), u]);
    byFolded.set(k.toLowerCase(), [...(byFolded.get(k.toLowerCase()) ?? []), k]);
  }
  const uids = new UidPool(new Set(current.flatMap((u) => (u.uid === null ? [] : [u.uid]))), profile.maxUid ?? 0);
  const mentioned = new Map<string, string>();
  const guarded = new Set([...guard.codes].map((c) => terminalKey(c, profile)));

  const adminNamed = (u: TerminalUser) =>
    opts.includeAdmins === true ||
    (opts.includeAdmins !== false &&
      [...opts.includeAdmins].some((c) => terminalKey(c, profile) === terminalKey(u.code, profile)));
  const remove = (u: TerminalUser, reason: 'inactive' | 'absent') => {
    if (isAdministrator(u.privilege) && !adminNamed(u)) {
      plan.protectedAdmins.push({ code: u.code, uid: u.uid, name: u.name, reason });
      return;
    }
    removes.push({
      action: 'remove',
      code: u.code,
      uid: u.uid,
      name: u.name,
      card: u.card,
      privilege: u.privilege,
      reason,
      ...(u.cards ? { cards: u.cards } : {}),
    });
  };

  for (const e of roster) {
    const sc = storedCode(e.code, profile);
    if ('error' in sc) {
      plan.refused.push({ code: e.code, where: e.where, reason: sc.error });
      continue;
    }
    const code = sc.code;
    const earlier = mentioned.get(code);
    if (earlier !== undefined) {
      plan.refused.push({ code: e.code, where: e.where, reason: `the same user on this terminal as ${earlier}` });
      continue;
    }
    mentioned.set(code, e.where);
    const matches = byKey.get(code) ?? [];
    if (!e.active) {
      for (const u of matches) remove(u, 'inactive');
      continue;
    }
    if (e.card !== null && e.card > profile.maxCard) {
      plan.refused.push({
        code: e.code,
        where: e.where,
        reason: `card ${e.card}: this terminal holds up to ${profile.maxCard}`,
      });
      continue;
    }
    const name = storedName(e.name, profile);
    const unwritable = nameProblem(name, profile);
    const otherCase = matches.length === 0 ? (byFolded.get(code.toLowerCase()) ?? []) : [];
    if (otherCase.length > 0) {
      // A second user for the same person would lack the first one's fingerprints, and punches
      // would come under both codes. The user held is left alone (mentioned: never "absent").
      for (const k of otherCase) mentioned.set(k, e.where);
      const held = otherCase.flatMap((k) => byKey.get(k) ?? []);
      const names = held.map((u) => `${u.code}${u.uid === null ? '' : ` (uid ${u.uid})`}`).join(', ');
      plan.refused.push({
        code: e.code,
        where: e.where,
        reason: `this terminal holds ${names}, the same code in other letters: not added as a second user. If it is the same person, give the code its old spelling in the HRMS (or the roster); if the change is meant, remove ${held[0]?.code ?? ''} from the terminal first (the next run adds ${code})`,
      });
      continue;
    }
    if (matches.length === 0) {
      if (unwritable) {
        plan.refused.push({ code: e.code, where: e.where, reason: `not added: ${unwritable}` });
        continue;
      }
      let uid: number | null = null;
      if (profile.maxUid !== null) {
        uid = uids.take();
        if (uid === null) {
          plan.refused.push({
            code: e.code,
            where: e.where,
            reason: `no free uid (1..${profile.maxUid}) on this terminal`,
          });
          continue;
        }
      }
      adds.push({ action: 'add', code, uid, name, card: e.card ?? 0, ...spelling(e), where: e.where });
      continue;
    }
    for (const u of matches) {
      const fields: ('name' | 'card')[] = [];
      const nameDiffers = u.nameUnreadable === undefined ? u.name.trim() !== name : true;
      // A name whose bytes are no text in the terminal's character set, or one that set cannot
      // hold, is left as the terminal has it (the card is still changed): never written as garbage.
      const nameHeld = u.nameUnreadable !== undefined ? unreadableName(u, profile) : nameDiffers ? unwritable : null;
      if (nameDiffers && nameHeld === null) fields.push('name');
      if (nameHeld !== null)
        plan.refused.push({ code: e.code, where: e.where, reason: `name not changed: ${nameHeld}` });
      if (e.card !== null && e.card !== u.card) fields.push('card');
      if (fields.length === 0) {
        if (nameHeld === null) plan.kept++;
        continue;
      }
      updates.push({
        action: 'update',
        code: u.code,
        uid: u.uid,
        // The name the terminal keeps when it is not changed (an update writes only its fields).
        name: fields.includes('name') ? name : u.name,
        card: e.card ?? u.card,
        ...(fields.includes('card') ? spelling(e) : {}),

        privilege: u.privilege,
        before: { name: u.name, card: u.card },
        fields,
        where: e.where,
      });
    }
  }

  for (const [key, users] of byKey) {
    if (mentioned.has(key)) continue;
    for (const u of users) {
      const mayRemove = opts.removeAbsent && !guard.unknown && !guarded.has(key) && u.code !== '';
      if (mayRemove) remove(u, 'absent');
      else plan.leftAlone++;
    }
  }
  const limit = removalLimit(opts.maxRemovals, current.length);
  const held = removes.length > limit;
  if (held) {
    // Too many at once to be HR's intent: an HRMS or file that lost people, or marks everyone
    // blocked. Nobody is removed; the additions and updates still go.
    plan.heldRemovals = { removals: removes, limit, users: current.length };
  }
  const cards = withoutTakenCards(updates, adds, current, held ? [] : removes, plan);
  const fitting = withinCapacity(cards.adds, current.length - (held ? 0 : removes.length), profile, plan);
  plan.changes = held ? [...cards.updates, ...fitting] : [...removes, ...cards.updates, ...fitting];
  return plan;
}

/**
 * The hires a terminal has room for, in roster order (after this run's removals); the others are
 * refused with the reason. Tried, they would each fail as "refused by the terminal" and the dry
 * run would have promised them.
 */
function withinCapacity(adds: AddChange[], holding: number, profile: TerminalProfile, plan: Plan): AddChange[] {
  if (profile.maxUsers === undefined) return adds;
  const room = Math.max(0, profile.maxUsers - holding);
  for (const a of adds.slice(room)) {
    plan.refused.push({
      code: a.code,
      where: a.where,
      reason: `the terminal is full: it holds at most ${profile.maxUsers} users (${holding} after this run's removals); remove leavers or users not in the roster (--remove-absent) to make room`,
    });
  }
  return adds.slice(0, room);
}

/** Share of a terminal's users one run may remove by default, and the least it may always remove. */
export const DEFAULT_REMOVAL_SHARE = 0.1;
export const DEFAULT_REMOVAL_FLOOR = 3;

/** The most users one run may remove from a terminal holding `users` users. */
export function removalLimit(max: number | 'default', users: number): number {
  if (max !== 'default') return max;
  return Math.max(DEFAULT_REMOVAL_FLOOR, Math.floor(users * DEFAULT_REMOVAL_SHARE));
}

/** The users a terminal holds once `changes` are applied (what a terminal does with them). */
export function applyChanges(current: readonly TerminalUser[], changes: readonly Change[]): TerminalUser[] {
  let users = current.map((u) => ({ ...u }));
  const same = (u: TerminalUser, c: Change) => (c.uid !== null ? u.uid === c.uid : u.code === c.code);
  for (const c of changes) {
    if (c.action === 'remove') users = users.filter((u) => !same(u, c));
    else if (c.action === 'update') users = users.map((u) => (same(u, c) ? { ...u, name: c.name, card: c.card } : u));
    else users.push({ uid: c.uid, code: c.code, name: c.name, card: c.card, privilege: 0 });
  }
  return users;
}

function unreadableName(u: TerminalUser, profile: TerminalProfile): string {
  return `the terminal's name for user ${u.code} is no text in ${profile.encoding ?? 'utf-8'} (${u.nameUnreadable}); what it says is unknown. If the terminal shows names in another character set (GBK, Big5, windows-1256...), set encoding: for this terminal in the config`;
}

/** The roster's spelling of its card, carried into a change (RosterEntry.cardText). */
const spelling = (e: RosterEntry): { cardText?: string } => (e.cardText !== undefined ? { cardText: e.cardText } : {});
