/**
 * The words of user sync (issue 16): the roster HR gives, the users a terminal holds, what a
 * terminal can store, and the plan of changes between them. Shared by the planner (pure), the
 * roster readers and the adapters of each terminal kind.
 */

/** One person in the roster (a CSV row or an HRMS employee). */
export interface RosterEntry {
  /** The terminal's user id: the HRMS biometric code. */
  code: string;
  name: string;
  /** Card number; null = not given (a terminal's card is then left as it is; a new user gets none). */
  card: number | null;
  /**
   * The card as the roster spells it, when that is not the number's own spelling (leading zeros:
   * `0012345678`, as printed on many EM cards). Terminals that keep cards as text (Hikvision,
   * Dahua) are given this spelling; ZK terminals keep a number. Cards are compared as numbers.
   */
  cardText?: string;
  /** false = a leaver: removed from the terminals. */
  active: boolean;
  /** Where the entry came from, for messages: `roster.csv:12` or `HRMS employee 14`. */
  where: string;
}

/** A roster row that could not be read. */
export interface RosterProblem {
  where: string;
  message: string;
  /** The row's code when it could be read: that user is left alone on every terminal. */
  code?: string;
  /**
   * The row shows that the roster itself cannot be trusted to name everyone (a code given twice:
   * a page served again stands where other people should be): nobody is removed as absent.
   */
  listInDoubt?: boolean;
}

export interface Roster {
  entries: RosterEntry[];
  problems: RosterProblem[];
  /** Rows read (good and bad). */
  rows: number;
  /** Rows skipped on purpose (an HRMS employee without a biometric code), not problems. */
  skipped: number;
}

/** A user as a terminal holds it. */
export interface TerminalUser {
  /** Internal index (ZK); null on terminals that have none (push terminals). */
  uid: number | null;
  code: string;
  name: string;
  card: number;
  /**
   * Every card the terminal holds for the user, as it spells them (Hikvision, Dahua, push
   * terminals keep cards as text, and a person may have several): what a removal's backup keeps.
   * Absent where `card` says it all (ZK).
   */
  cards?: readonly string[];
  /** 0 user; 14 administrator (ZK: bit 0 = disabled, bits 1-3 the level). */
  privilege: number;
  /**
   * Set when the name's bytes on the terminal are no text in its character set (its `encoding`),
   * what is known of it (`bytes d5 c5 c8 fd`): what the name means is unknown, so it is never written
   * back, and never replaced (the character set configured is likely not the terminal's).
   */
  nameUnreadable?: string;
}

/** What a terminal can store: the planner writes only what the terminal will read back the same. */
/**
 * A TerminalUser's card when what the terminal holds is not one card the roster can name (several
 * cards, or a number past 4294967295): equal to no roster card, so any card in the roster
 * (0 included) is written. It is never written to a terminal.
 */
export const OTHER_CARDS = -1;

export interface TerminalProfile {
  /** Bytes a name keeps (ZK: 24, or 8 on 28-byte records). Longer names are cut at a character. */
  nameBytes: number;
  /**
   * The name's bytes in the terminal's character set (its `encoding`), or null when that set
   * cannot hold every character of it; absent: UTF-8.
   */
  encodeName?: (text: string) => Buffer | null;
  /** The character set's name, for messages (absent: UTF-8). */
  encoding?: string;
  /** Bytes a code may have. */
  codeBytes: number;
  /** Codes are stored as numbers (ZK 28-byte records): digits only, leading zeros are dropped. */
  numericCodes: boolean;
  /** Largest card number. */
  maxCard: number;
  /** Highest uid to hand out (ZK: 65535); null when the terminal assigns none. */
  maxUid: number | null;
  /**
   * Users the terminal holds at most, as it reports (ZK: its user capacity); absent when it does
   * not say. Hires past it are refused in the plan, so that a dry run says they will not fit.
   */
  maxUsers?: number;
}

export interface PlanOptions {
  /** Remove users the roster does not mention. */
  removeAbsent: boolean;
  /** Administrators may be removed too: all of them (true), or only those with these codes. */
  includeAdmins: boolean | ReadonlySet<string>;
  /**
   * The most users one run removes from one terminal: a number, or 'default' (a tenth of the users
   * the terminal holds, at least 3). A plan that would remove more removes nobody (see
   * Plan.heldRemovals): a roster that suddenly lost people must never empty a terminal.
   */
  maxRemovals: number | 'default';
}

export type ChangeAction = 'add' | 'update' | 'remove';

interface ChangeBase {
  action: ChangeAction;
  /** The code as the terminal stores it. */
  code: string;
  uid: number | null;
  name: string;
  card: number;
  /** The roster's spelling of `card` (RosterEntry.cardText), for terminals that keep cards as text. */
  cardText?: string;
}

export interface AddChange extends ChangeBase {
  action: 'add';
  where: string;
}

export interface UpdateChange extends ChangeBase {
  action: 'update';
  where: string;
  before: { name: string; card: number };
  fields: ('name' | 'card')[];
  privilege: number;
}

export interface RemoveChange extends ChangeBase {
  action: 'remove';
  /** 'inactive': the roster says so; 'absent': not in the roster, with --remove-absent. */
  reason: 'inactive' | 'absent';
  privilege: number;
  /** The user's cards as the terminal spells them (TerminalUser.cards), kept in the backup. */
  cards?: readonly string[];
}

export type Change = AddChange | UpdateChange | RemoveChange;

/** A change the planner could not make, with the reason (nothing is written for it). */
export interface Refusal {
  code: string;
  where: string;
  reason: string;
}

export interface Plan {
  /** In the order they are applied: removals, updates, additions. */
  changes: Change[];
  /** Roster users already right on the terminal. */
  kept: number;
  /** Users on the terminal the roster does not mention, left alone. */
  leftAlone: number;
  /** Administrators the roster would remove, kept (no --include-admins). */
  protectedAdmins: { code: string; uid: number | null; name: string; reason: 'inactive' | 'absent' }[];
  refused: Refusal[];
  /**
   * Removals held back because there were more than the limit (PlanOptions.maxRemovals): none of
   * them is in `changes`. Null when the removals were within the limit.
   */
  heldRemovals: { removals: RemoveChange[]; limit: number; users: number } | null;
}

/**
 * What became of a change: applied (the terminal has it), failed (refused or lost), not-attempted
 * (an earlier failure stopped the run), unknown (no answer and no way to check), queued (a push
 * terminal will apply it when it next polls), planned (dry run).
 */
export type ChangeStatus = 'applied' | 'failed' | 'not-attempted' | 'unknown' | 'queued' | 'planned';

export interface ChangeResult {
  status: ChangeStatus;
  error?: string;
  /** Removals: fingerprint templates saved in the journal before the user was removed. */
  backedUpFingers?: number;
}

/**
 * The codes a roster row problem protects, and whether nobody may be removed as absent (a bad
 * row had no readable code, or the roster gave a code twice), with the reason in words.
 */
export function protectedCodes(roster: Roster): { codes: Set<string>; unknown: boolean; why?: string } {
  const codes = new Set<string>();
  let why: string | undefined;
  for (const p of roster.problems) {
    if (p.code === undefined) why ??= 'a bad row has no readable code';
    else codes.add(p.code);
    if (p.listInDoubt) why ??= 'the roster lists a code twice (who is missing from it is not certain)';
  }
  return why === undefined ? { codes, unknown: false } : { codes, unknown: true, why };
}
