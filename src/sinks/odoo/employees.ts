import { elapsedMs, type Clock } from '../../util/clock.js';
import type { CallContext, OdooApi } from './api.js';
import { recordsOf } from './failure.js';

/** What the code on a terminal names in Odoo. */
export type EmployeeMatch =
  { kind: 'one'; id: number; name: string } | { kind: 'none' } | { kind: 'many'; names: string[] };

/**
 * hr.employee records found by the field holding the terminal's code (`barcode`, `pin` or a
 * custom field), one search_read for all the codes of a batch not known yet: a batch of punches by
 * someone Odoo does not know costs no call per punch. A found employee is kept for `cacheSeconds`.
 * A code not found (or found twice) is asked again with the next batch: the admin adds the employee
 * and runs `punchgate punches retry` at once, as the status says; a minute's memory of the miss
 * refused those punches again and put them off for an hour (a new-user trial).
 */
export class EmployeeDirectory {
  private readonly known = new Map<string, { at: number; match: Extract<EmployeeMatch, { kind: 'one' }> }>();

  constructor(
    private readonly field: string,
    private readonly cacheSeconds: number,
    private readonly clock: Clock,
  ) {}

  async resolve(codes: Iterable<string>, api: OdooApi, ctx: CallContext): Promise<Map<string, EmployeeMatch>> {
    // How long an employee is kept is a duration: on the monotonic clock, so a step back of the
    // box clock does not keep one moved or archived in Odoo for the length of the step.
    const now = elapsedMs(this.clock);
    const out = new Map<string, EmployeeMatch>();
    const ask: string[] = [];
    for (const code of new Set(codes)) {
      const k = this.known.get(code);
      if (k && now - k.at < this.cacheSeconds * 1000) out.set(code, k.match);
      else ask.push(code);
    }
    if (ask.length === 0) return out;
    const rows = await api.call(
      {
        model: 'hr.employee',
        method: 'search_read',
        kwargs: { domain: [[this.field, 'in', ask]], fields: ['id', 'name', this.field] },
      },
      ctx,
    );
    const found = new Map<string, Array<{ id: number; name: string }>>();
    for (const row of recordsOf('the employee lookup', rows, ctx.scrub)) {
      const code = row[this.field];
      if (typeof row.id !== 'number' || (typeof code !== 'string' && typeof code !== 'number')) continue;
      const list = found.get(String(code)) ?? [];
      list.push({ id: row.id, name: typeof row.name === 'string' ? row.name : `#${row.id}` });
      found.set(String(code), list);
    }
    for (const code of ask) {
      const list = found.get(code) ?? [];
      const match: EmployeeMatch =
        list.length === 1
          ? { kind: 'one', id: list[0]!.id, name: list[0]!.name }
          : list.length === 0
            ? { kind: 'none' }
            : { kind: 'many', names: list.map((e) => e.name) };
      if (match.kind === 'one') this.known.set(code, { at: now, match });
      else this.known.delete(code);
      out.set(code, match);
    }
    return out;
  }

  /** Forget a code (its employee vanished between the lookup and the write). */
  forget(code: string): void {
    this.known.delete(code);
  }
}
