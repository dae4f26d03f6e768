/**
 * A person's later punches held behind their refused one (ClaimOptions.holdBehindRefused).
 *
 * Why: a sink that pairs punches per person (Odoo's hr.attendance: a check-in opens a record, the
 * next punch closes it) must see a person's punches in time order. A refused punch left out of the
 * sequence while the later ones go on pairs them wrongly for good: with no direction, every later
 * pair is shifted by one (the check-out opens a record, the next check-in closes it); with `out`
 * terminals, a check-out closes a record left open the day before. When the refused one is then
 * delivered (the employee added, the record corrected), Odoo refuses it as overlapping, and the
 * wrong records stay. So for such a sink a claim leaves out every punch of a code that has an
 * earlier refused punch still waiting for its retry (`rejected`); the refused one itself is taken
 * when its retry is due, and once it is delivered (or `dead`: given up) the others follow in order.
 *
 * The refused punches are few (they are not delivered): their codes and earliest log times are read
 * first, in the claim's transaction, and given to the queue's statement as a JSON object.
 * Log times are the terminals' wall clocks, compared as text, as the queue's own order is.
 * Refusals whose message matches one of the sink's `holdNothing` patterns (SQL LIKE) hold nothing.
 */

/** The punches a held claim leaves out: those with a refused punch of the same code before them. */
export function notHeldTerm(code: string, logTime: string): string {
  return `NOT EXISTS (SELECT 1 FROM json_each(@held) h WHERE h.key = ${code} AND h.value < ${logTime})`;
}

/** Rows of the earliest refused log time per code, as the queries below give them. */
export interface RefusedFirst {
  code: string;
  t: string;
}

/** The default sink's (punches table): read through the queue index (`state IN (...)` repeated). */
export const DEFAULT_REFUSED_FIRST = `SELECT biometric_code AS code, min(log_time) AS t FROM punches
  WHERE state IN ('pending', 'rejected') AND state = 'rejected'
    AND NOT EXISTS (SELECT 1 FROM json_each(@free) f WHERE last_message LIKE f.value)
  GROUP BY biometric_code`;

/** Another sink's (sink_deliveries), by @sink. */
export const SINK_REFUSED_FIRST = `SELECT p.biometric_code AS code, min(d.log_time) AS t
  FROM sink_deliveries d JOIN punches p ON p.id = d.punch_id
  WHERE d.sink = @sink AND d.state IN ('pending', 'rejected') AND d.state = 'rejected'
    AND NOT EXISTS (SELECT 1 FROM json_each(@free) f WHERE d.last_message LIKE f.value)
  GROUP BY p.biometric_code`;

/** The @held parameter: {"<code>": "<earliest refused log time>"}. */
export function heldParam(rows: readonly RefusedFirst[]): string {
  // No prototype: a code such as "__proto__" is a key like any other.
  const held = Object.create(null) as Record<string, string>;
  for (const r of rows) held[r.code] = r.t;
  return JSON.stringify(held);
}

/** The @free parameter: the LIKE patterns of refusals that hold nothing. */
export function freeParam(opts: { holdNothing?: readonly string[] }): string {
  return JSON.stringify(opts.holdNothing ?? []);
}

/**
 * Refusals that hold nothing (an unknown code) still go before the person's later punches.
 *
 * Why: while the code names nobody, each of its punches is refused on its own (held-nothing). Once
 * the employee is added, the next punch of that code would go in at once, ahead of the earlier
 * ones still waiting for their slow retry, and these would then be refused for good as out of
 * order (Odoo: "hasn't checked out since" the later one): found by a rehearsal in which a person
 * punched between the employee being added and `punches retry`. So a claim that takes a pending
 * punch of such a code takes the code's earlier refusals along, due or not, and the batch keeps
 * time order. A code still unknown has them all refused again, each once more, and nothing of it
 * goes until its retry is due or another punch of it comes: no loop.
 */
export interface QueuedRow {
  id: number;
  biometricCode: string;
  logTime: string;
  previousState: 'pending' | 'rejected';
}

/** The @codes parameter of the pulled-refusals statements: the codes of the claim's pending rows. */
export function pendingCodesParam(rows: readonly QueuedRow[]): string {
  return JSON.stringify([...new Set(rows.filter((r) => r.previousState === 'pending').map((r) => r.biometricCode))]);
}

/** Is there a pending row in the claim (only then can a refusal be pulled along)? */
export function anyPending(rows: readonly QueuedRow[]): boolean {
  return rows.some((r) => r.previousState === 'pending');
}

/** The WHERE term of the pulled-refusals statements (codes in @codes, refusals LIKE one of @free). */
export function pulledTerm(code: string, message: string): string {
  return `${code} IN (SELECT value FROM json_each(@codes))
    AND EXISTS (SELECT 1 FROM json_each(@free) f WHERE ${message} LIKE f.value)`;
}

/**
 * The claim's rows with the pulled refusals that come before a pending row of their code, in queue
 * order (log time, then id), cut to `limit` from the end: a later punch is never taken without the
 * earlier ones.
 */
export function withRefusalsAhead<T extends QueuedRow>(rows: T[], pulled: readonly T[], limit: number): T[] {
  if (pulled.length === 0) return rows;
  const latestPending = new Map<string, string>();
  for (const r of rows) {
    if (r.previousState !== 'pending') continue;
    const t = latestPending.get(r.biometricCode);
    if (t === undefined || r.logTime > t) latestPending.set(r.biometricCode, r.logTime);
  }
  const taken = new Set(rows.map((r) => r.id));
  const ahead = pulled.filter((p) => !taken.has(p.id) && p.logTime < (latestPending.get(p.biometricCode) ?? ''));
  if (ahead.length === 0) return rows;
  const all = [...rows, ...ahead];
  all.sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : a.id - b.id));
  return all.slice(0, limit);
}
