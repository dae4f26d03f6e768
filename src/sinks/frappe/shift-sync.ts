import type { HrmsHttp } from '../../hrms/http.js';
import { outsideText } from '../../hrms/text.js';
import { errorCode } from '../../util/errors.js';
import { scrubberFor } from '../../util/secrets.js';
import { readFrappeBody, frappeSaid } from './frappe-json.js';
import { shiftTypeUrl, splitToken } from './options.js';
import { wallClockInZone } from '../../punch/wall-clock-utc.js';

/**
 * Shift sync: Frappe HR's Auto Attendance (hrms shift_type.py process_auto_attendance) marks
 * attendance only for shifts whose actual end is before `Shift Type.last_sync_of_checkin`, and
 * marks absent whoever has no check-in in them. Set too late, a person whose punch is still on its
 * way is marked absent. The Frappe sync tool (erpnext_sync.py update_shift_last_sync_timestamp)
 * sets it to the oldest "pulled at" time of the shift's devices once each has pushed; punchgate
 * sets it to what it knows for sure: every punch of the shift's terminals before that time is in
 * Frappe.
 *
 * The caller (the daemon) gives, for each terminal of a sink's `shiftSync` entries:
 * - `readUpTo`: the terminal's wall-clock time ('YYYY-MM-DD HH:mm:ss', in the terminal's zone, the
 *   zone its punches' times are in) up to which its log has been read into the journal (a pull
 *   terminal: its clock at the last complete read; a push terminal: its clock when it last said it
 *   had nothing more to send). Absent: never read; the shift types it belongs to are not set.
 * - `oldestUndelivered`: the log time of the oldest punch of that terminal that this sink has not
 *   yet taken (pending, unknown, refused and waiting for a retry; not `dead` ones), or absent.
 * and, per shift type, the value punchgate last set (absent at the start: then it is set).
 * The times are compared as wall clocks, as Frappe compares them: the terminals of one shift type
 * should share one zone (the site's).
 */
export interface ShiftSyncRule {
  /** The Shift Type's name in Frappe. */
  shiftType: string;
  /** Names of the terminals (in punchgate's config) whose punches fall in that shift. */
  terminals: readonly string[];
}

export interface TerminalProgress {
  readUpTo?: string;
  oldestUndelivered?: string;
  /** The oldest undelivered punch was refused by the sink and waits for its retry. */
  oldestRefused?: true;
}

/** A shift type held where a punch the sink refused stands (shiftSyncHolds). */
export interface ShiftSyncHold {
  shiftType: string;
  /** The terminal of the refused punch, and its log time: the shift type stays before it. */
  terminal: string;
  logTime: string;
}

export interface ShiftSyncTarget {
  shiftType: string;
  /** The value to PUT: 'YYYY-MM-DD HH:mm:ss'. */
  lastSync: string;
}

const WALL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/**
 * Each terminal's progress as the site's wall clock (a sink with `timezone`: its punches are sent
 * converted to it, so what Frappe compares last_sync_of_checkin with is in it too). `zoneOf`: each
 * terminal's zone (its `timezone`, else the box's).
 */
export function progressInZone(
  progress: ReadonlyMap<string, TerminalProgress>,
  zoneOf: (terminal: string) => string,
  siteZone: string,
): Map<string, TerminalProgress> {
  const out = new Map<string, TerminalProgress>();
  for (const [name, p] of progress) {
    const from = zoneOf(name);
    const to = (t: string) => (WALL.test(t) ? wallClockInZone(t, from, siteZone) : t);
    out.set(name, {
      ...p,
      ...(p.readUpTo !== undefined ? { readUpTo: to(p.readUpTo) } : {}),
      ...(p.oldestUndelivered !== undefined ? { oldestUndelivered: to(p.oldestUndelivered) } : {}),
    });
  }
  return out;
}

/**
 * The last_sync_of_checkin to set now, per shift type: the earliest, over its terminals, of the
 * time read up to and the oldest undelivered punch (never ahead of a punch Frappe has not got:
 * a punch at that very time belongs to a shift that ends at or after it, which Auto Attendance
 * leaves alone); only when it moves forward from what was set. Pure: no clock, no I/O.
 */
export function shiftSyncTargets(
  rules: readonly ShiftSyncRule[],
  progress: ReadonlyMap<string, TerminalProgress>,
  lastSet: ReadonlyMap<string, string>,
): ShiftSyncTarget[] {
  const out: ShiftSyncTarget[] = [];
  for (const rule of rules) {
    const bound = ruleBound(rule, progress)?.at;
    if (bound === undefined) continue;
    const before = lastSet.get(rule.shiftType);
    if (before !== undefined && bound <= before) continue;
    out.push({ shiftType: rule.shiftType, lastSync: bound });
  }
  return out;
}

/**
 * The shift types whose last_sync_of_checkin stands at a refused punch: the earliest bound over
 * their terminals is a punch the sink refused (it waits for its retry, or for an admin), so Auto
 * Attendance of the whole shift waits for that one punch. Pure, like shiftSyncTargets.
 */
export function shiftSyncHolds(
  rules: readonly ShiftSyncRule[],
  progress: ReadonlyMap<string, TerminalProgress>,
): ShiftSyncHold[] {
  const out: ShiftSyncHold[] = [];
  for (const rule of rules) {
    const b = ruleBound(rule, progress);
    if (b?.refused) out.push({ shiftType: rule.shiftType, terminal: b.terminal, logTime: b.at });
  }
  return out;
}

/**
 * How far a shift type is known: the earliest bound over its terminals, with the terminal that
 * sets it and whether a refused punch does; undefined when it is not known (no terminals, one
 * never read).
 */
function ruleBound(
  rule: ShiftSyncRule,
  progress: ReadonlyMap<string, TerminalProgress>,
): { at: string; terminal: string; refused: boolean } | undefined {
  let least: { at: string; terminal: string; refused: boolean } | undefined;
  for (const t of rule.terminals) {
    const b = terminalBound(progress.get(t));
    if (b === undefined) return undefined;
    if (!least || b.at < least.at) least = { ...b, terminal: t };
  }
  return least;
}

/**
 * One terminal's bound: the earlier of the time its log is read up to and its oldest punch the
 * sink has not got (`refused`: that punch was refused); undefined when it is not known.
 */
function terminalBound(p: TerminalProgress | undefined): { at: string; refused: boolean } | undefined {
  if (!p?.readUpTo || !WALL.test(p.readUpTo)) return undefined;
  const owed = p.oldestUndelivered;
  if (owed === undefined) return { at: p.readUpTo, refused: false };
  // A punch whose time cannot be read holds the shift back: nothing is known past it.
  if (!WALL.test(owed)) return undefined;
  return owed < p.readUpTo ? { at: owed, refused: p.oldestRefused === true } : { at: p.readUpTo, refused: false };
}

export type ShiftSyncAnswer =
  | { kind: 'set'; shiftType: string; lastSync: string }
  /** The key and secret refused, or the API user may not write Shift Types (401/403). */
  | { kind: 'auth'; httpStatus: number; message: string }
  /** Frappe refused it (no such Shift Type, a bad value...): its words. */
  | { kind: 'refused'; httpStatus: number; message: string }
  /** Try again at the next round. */
  | { kind: 'failed'; httpStatus?: number; message: string };

/**
 * Sets one Shift Type's last_sync_of_checkin: `PUT /api/resource/Shift Type/<name>` with
 * {"last_sync_of_checkin": "YYYY-MM-DD HH:mm:ss"}, the Frappe sync tool's send_shift_sync_to_erpnext.
 * The API user needs write access to Shift Type. Never throws; no secret in a message.
 */
export async function setLastSync(
  http: HrmsHttp,
  baseUrl: string,
  target: ShiftSyncTarget,
  opts: { token: string; signal?: AbortSignal },
): Promise<ShiftSyncAnswer> {
  const { key, secret } = splitToken(opts.token);
  const scrub = scrubberFor([opts.token, key, secret, ...http.secretValues()]);
  const clean = (s: string) => outsideText(s, scrub);
  if (!WALL.test(target.lastSync))
    return { kind: 'failed', message: `not a 'YYYY-MM-DD HH:mm:ss' time: ${clean(target.lastSync)}` };
  try {
    const res = await http.request({
      method: 'PUT',
      url: shiftTypeUrl(baseUrl, target.shiftType),
      headers: { authorization: `token ${opts.token}`, accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ last_sync_of_checkin: target.lastSync }),
      maxBytes: 256 * 1024,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const body = readFrappeBody(res.text);
    const said = body ? frappeSaid(body) : undefined;
    const why = `HTTP ${res.status}${said ? `: ${clean(said)}` : ''}`;
    if (res.status >= 200 && res.status < 300) {
      if (body) return { kind: 'set', shiftType: target.shiftType, lastSync: target.lastSync };
      return { kind: 'failed', httpStatus: res.status, message: `${why} with an answer that is not Frappe's JSON` };
    }
    if (res.status === 401 || res.status === 403)
      return { kind: 'auth', httpStatus: res.status, message: `Shift Type ${clean(target.shiftType)}: ${why}` };
    if (res.status >= 500 || res.status === 408 || res.status === 429 || !body)
      return { kind: 'failed', httpStatus: res.status, message: why };
    return { kind: 'refused', httpStatus: res.status, message: `Shift Type ${clean(target.shiftType)}: ${why}` };
  } catch (e) {
    const code = errorCode(e);
    const detail = e instanceof Error ? e.message : String(e);
    return { kind: 'failed', message: clean(code && !detail.includes(code) ? `${code}: ${detail}` : detail) };
  }
}

/**
 * One sink's shift sync, for the daemon: call `round` after each delivery round (or on a timer)
 * with every listed terminal's progress; it sets what moved forward and remembers what Frappe
 * took (a restart starts from nothing and sets each shift type once more, which is harmless: the
 * value is the same or later).
 */
export class FrappeShiftSync {
  private readonly lastSet = new Map<string, string>();

  constructor(
    private readonly http: HrmsHttp,
    private readonly baseUrl: string,
    readonly rules: readonly ShiftSyncRule[],
  ) {}

  /** The terminals whose progress `round` needs. */
  terminals(): string[] {
    return [...new Set(this.rules.flatMap((r) => r.terminals))];
  }

  /** Sets each shift type whose value moves forward; one answer per PUT made (none: nothing moved). */
  async round(
    progress: ReadonlyMap<string, TerminalProgress>,
    opts: { token: string; signal?: AbortSignal },
  ): Promise<ShiftSyncAnswer[]> {
    const out: ShiftSyncAnswer[] = [];
    for (const target of shiftSyncTargets(this.rules, progress, this.lastSet)) {
      if (opts.signal?.aborted) break;
      const a = await setLastSync(this.http, this.baseUrl, target, opts);
      if (a.kind === 'set') this.lastSet.set(a.shiftType, a.lastSync);
      out.push(a);
      // A refused key or right concerns every shift type: the next round tries again.
      if (a.kind === 'auth') break;
    }
    return out;
  }

  /** The shift types held at a refused punch by `progress` (shiftSyncHolds). */
  holds(progress: ReadonlyMap<string, TerminalProgress>): ShiftSyncHold[] {
    return shiftSyncHolds(this.rules, progress);
  }

  /** What was last set, per shift type (for the status). */
  state(): ReadonlyMap<string, string> {
    return this.lastSet;
  }
}
