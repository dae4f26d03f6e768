import { DomainError, matches, type Row } from './domain.js';

/**
 * The two models the simulator keeps, with the behaviour of Odoo's own code (github:odoo/odoo):
 * hr.attendance's constraints are addons/hr_attendance/models/hr_attendance.py
 * `_check_validity_check_in_check_out` and `_check_validity`, with their messages word for word.
 */
export interface SimEmployee {
  id: number;
  name: string;
  barcode: string | false;
  pin: string | false;
  /** A custom field as the ZK modules add one (x_ prefix, as a field made in Studio). */
  x_punch_code: string | false;
  active: boolean;
}

export interface SimAttendance {
  id: number;
  employee_id: number;
  check_in: string;
  check_out: string | false;
  /**
   * How the record was closed (hr.attendance out_mode, Odoo 17+: kiosk, systray, manual; 18+ also
   * auto_check_out, written by _cron_auto_check_out). Records made through the API are 'manual'.
   */
  out_mode: string;
}

/** An Odoo exception as the simulator raises it: its dotted name and its message. */
export class OdooError extends Error {
  constructor(
    readonly odooName: string,
    message: string,
    /** JSON-2's status for it (odoo/exceptions.py http_status). */
    readonly httpStatus: number,
  ) {
    super(message);
  }
}

export const validationError = (m: string) => new OdooError('odoo.exceptions.ValidationError', m, 422);
export const userError = (m: string) => new OdooError('odoo.exceptions.UserError', m, 422);
const notFound = (m: string) => new OdooError('werkzeug.exceptions.NotFound', m, 404);

/** Odoo's format_datetime(env, dt, dt_format=False) in en_US, for the messages (the user's zone: UTC here). */
export function odooDateTime(utc: string): string {
  const d = new Date(`${utc.replace(' ', 'T')}Z`);
  const month = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  const h = d.getUTCHours();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${month} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${h % 12 || 12}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}

const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export class OdooStore {
  /** Whether hr.attendance has in_mode / out_mode (Odoo 17 and later; 16 answers "Invalid field"). */
  hasModes = true;
  employees: SimEmployee[] = [];
  attendances: SimAttendance[] = [];
  private nextEmployee = 1;
  private nextAttendance = 1;

  addEmployee(e: Partial<SimEmployee> & { name: string }): SimEmployee {
    const full: SimEmployee = {
      id: this.nextEmployee++,
      barcode: false,
      pin: false,
      x_punch_code: false,
      active: true,
      ...e,
    };
    this.employees.push(full);
    return full;
  }

  reset(): void {
    this.attendances = [];
    this.nextAttendance = 1;
  }

  /** One model method, as execute_kw or JSON-2 runs it: `ids` the records, `kw` the named arguments. */
  call(model: string, method: string, ids: number[], kw: Record<string, unknown>): unknown {
    if (model !== 'hr.employee' && model !== 'hr.attendance') throw notFound(`the model '${model}' does not exist`);
    switch (method) {
      case 'search_read':
        return this.searchRead(model, kw);
      case 'search_count':
        return this.searchRead(model, { ...kw, fields: ['id'] }).length;
      case 'create':
        if (model !== 'hr.attendance') break;
        return this.create(kw.vals_list);
      case 'write':
        if (model !== 'hr.attendance') break;
        this.write(ids, kw.vals);
        return true;
    }
    throw notFound(`The method '${method}' does not exist on the model '${model}'`);
  }

  private rows(model: string): Row[] {
    if (model === 'hr.employee') return this.employees.filter((e) => e.active) as unknown as Row[];
    return this.attendances.map(({ out_mode, ...a }) => ({
      ...a,
      ...(this.hasModes ? { out_mode } : {}),
      employee_id: [a.employee_id, this.employeeName(a.employee_id)],
    }));
  }

  /**
   * Odoo 18's automatic check-out (addons/hr_attendance/models/hr_attendance.py
   * _cron_auto_check_out_tolerance / _cron_auto_check_out_specific_time): the cron closes every
   * open attendance of `employeeId` at `checkOut` (UTC) and marks it out_mode 'auto_check_out'.
   * Answers the records closed.
   */
  autoCheckOut(employeeId: number, checkOut: string): SimAttendance[] {
    const closed: SimAttendance[] = [];
    this.attendances = this.attendances.map((a) => {
      if (a.employee_id !== employeeId || a.check_out) return a;
      const next = { ...a, check_out: checkOut < a.check_in ? a.check_in : checkOut, out_mode: 'auto_check_out' };
      closed.push(next);
      return next;
    });
    return closed;
  }

  private employeeName(id: number): string {
    return this.employees.find((e) => e.id === id)?.name ?? `#${id}`;
  }

  private searchRead(model: string, kw: Record<string, unknown>): Row[] {
    let rows: Row[];
    try {
      rows = this.rows(model).filter((r) => matches(r, kw.domain ?? []));
    } catch (e) {
      if (e instanceof DomainError) throw new OdooError('builtins.ValueError', e.message, 500);
      throw e;
    }
    const order = typeof kw.order === 'string' ? kw.order.trim() : model === 'hr.attendance' ? 'check_in desc' : 'id';
    const [key = 'id', dir = 'asc'] = order.split(/\s+/);
    rows.sort((a, b) => {
      const x = String(a[key]);
      const y = String(b[key]);
      const c = typeof a[key] === 'number' ? (a[key] as number) - (b[key] as number) : x < y ? -1 : x > y ? 1 : 0;
      return dir.toLowerCase() === 'desc' ? -c : c;
    });
    if (typeof kw.limit === 'number' && kw.limit > 0) rows = rows.slice(0, kw.limit);
    const fields = Array.isArray(kw.fields) ? (kw.fields as string[]) : undefined;
    return rows.map((r) => {
      if (!fields) return r;
      const out: Row = { id: r.id };
      for (const f of fields) {
        if (!(f in r)) throw new OdooError('builtins.ValueError', `Invalid field '${f}' on model '${model}'`, 500);
        out[f] = r[f];
      }
      return out;
    });
  }

  private create(valsList: unknown): number[] {
    const list = Array.isArray(valsList) ? valsList : [valsList];
    const created: SimAttendance[] = [];
    const before = this.attendances;
    try {
      for (const v of list) {
        const vals = (v ?? {}) as Record<string, unknown>;
        const employee = this.employees.find((e) => e.id === vals.employee_id);
        if (!employee) throw userError('Record does not exist or has been deleted.');
        const a: SimAttendance = {
          id: this.nextAttendance++,
          employee_id: employee.id,
          check_in: this.datetime(vals.check_in, 'check_in'),
          check_out: vals.check_out ? this.datetime(vals.check_out, 'check_out') : false,
          out_mode: typeof vals.out_mode === 'string' ? vals.out_mode : 'manual',
        };
        this.attendances = [...this.attendances, a];
        created.push(a);
        this.checkValidity(a);
      }
    } catch (e) {
      this.attendances = before; // the transaction rolls back
      throw e;
    }
    return created.map((a) => a.id);
  }

  private write(ids: number[], vals: unknown): void {
    const v = (vals ?? {}) as Record<string, unknown>;
    const before = this.attendances;
    try {
      for (const id of ids) {
        const old = this.attendances.find((a) => a.id === id);
        if (!old)
          throw new OdooError(
            'odoo.exceptions.MissingError',
            `Record does not exist or has been deleted.\n(Record: hr.attendance(${id},), User: 2)`,
            404,
          );
        const next: SimAttendance = { ...old };
        if ('check_in' in v) next.check_in = this.datetime(v.check_in, 'check_in');
        if ('check_out' in v) next.check_out = v.check_out ? this.datetime(v.check_out, 'check_out') : false;
        if ('out_mode' in v) {
          if (!this.hasModes)
            throw new OdooError('builtins.ValueError', `Invalid field 'out_mode' on model 'hr.attendance'`, 500);
          next.out_mode = String(v.out_mode);
        }
        this.attendances = this.attendances.map((a) => (a.id === id ? next : a));
        this.checkValidity(next);
      }
    } catch (e) {
      this.attendances = before;
      throw e;
    }
  }

  private datetime(v: unknown, field: string): string {
    if (typeof v !== 'string' || !DATETIME.test(v))
      throw new OdooError(
        'builtins.ValueError',
        `time data '${String(v)}' does not match format '%Y-%m-%d %H:%M:%S' (${field})`,
        500,
      );
    return v;
  }

  /** hr_attendance.py, _check_validity_check_in_check_out then _check_validity. */
  private checkValidity(a: SimAttendance): void {
    if (a.check_out && a.check_out < a.check_in)
      throw validationError('"Check Out" time cannot be earlier than "Check In" time.');
    const name = this.employeeName(a.employee_id);
    const others = this.attendances.filter((o) => o.employee_id === a.employee_id && o.id !== a.id);
    const latest = (list: SimAttendance[]) => list.sort((x, y) => (x.check_in < y.check_in ? 1 : -1))[0];
    const lastBeforeCheckIn = latest(others.filter((o) => o.check_in <= a.check_in));
    if (lastBeforeCheckIn?.check_out && lastBeforeCheckIn.check_out > a.check_in)
      throw validationError(
        `Cannot create new attendance record for ${name}, the employee was already checked in on ${odooDateTime(a.check_in)}`,
      );
    if (!a.check_out) {
      const noCheckOut = latest(others.filter((o) => !o.check_out));
      if (noCheckOut)
        throw validationError(
          `Cannot create new attendance record for ${name}, the employee hasn't checked out since ${odooDateTime(noCheckOut.check_in)}`,
        );
    } else {
      const checkOut = a.check_out;
      const lastBeforeCheckOut = latest(others.filter((o) => o.check_in < checkOut));
      if (lastBeforeCheckOut && lastBeforeCheckIn !== lastBeforeCheckOut)
        throw validationError(
          `Cannot create new attendance record for ${name}, the employee was already checked in on ${odooDateTime(lastBeforeCheckOut.check_in)}`,
        );
    }
  }
}
