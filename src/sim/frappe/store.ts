/** The simulator's data: Employees, Employee Checkins, Shift Types, as Frappe keeps them. */

/** The keys of SimEmployee itself: any other key given to addEmployee is a field. */
const KNOWN_EMPLOYEE_KEYS = new Set(['name', 'employee_name', 'status', 'fields', 'default_shift']);

export interface SimEmployee {
  /** Frappe's document name, HR-EMP-00001. */
  name: string;
  employee_name: string;
  status: 'Active' | 'Inactive' | 'Suspended' | 'Left';
  /** The field holding the terminal code (attendance_device_id) and any other custom field. */
  fields: Record<string, string>;
  /** A Shift Type name: its check-ins fall in that shift (fetch_shift). */
  default_shift?: string;
}

export interface SimCheckin {
  name: string;
  employee: string;
  employee_name: string;
  time: string;
  log_type: 'IN' | 'OUT' | null;
  device_id: string | null;
  skip_auto_attendance: 0 | 1;
  shift: string | null;
  creation: string;
  doctype: 'Employee Checkin';
}

export interface SimShiftType {
  name: string;
  /** hrms Shift Type's setting: "Alternating entries as IN and OUT during the same shift" or "Strictly based on Log Type in Employee Checkin". */
  determine_check_in_and_check_out: string;
  last_sync_of_checkin: string | null;
}

/** Some of the Employee doctype's own fields (erpnext setup/doctype/employee/employee.json). */
const STANDARD_EMPLOYEE_FIELDS = new Set([
  'name',
  'employee',
  'employee_name',
  'first_name',
  'middle_name',
  'last_name',
  'status',
  'attendance_device_id',
  'employee_number',
  'user_id',
  'company',
  'department',
  'designation',
  'cell_number',
  'company_email',
  'personal_email',
  'default_shift',
]);

export const STRICT_LOG_TYPE = 'Strictly based on Log Type in Employee Checkin';
export const ALTERNATING = 'Alternating entries as IN and OUT during the same shift';

export class FrappeStore {
  readonly employees = new Map<string, SimEmployee>();
  readonly checkins: SimCheckin[] = [];
  readonly shiftTypes = new Map<string, SimShiftType>();
  /** employee|time|log_type -> check-in: the duplicate check stays quick with many check-ins (bench). */
  private readonly byKey = new Map<string, SimCheckin>();
  private employeeSeq = 0;
  private checkinSeq = 0;

  addEmployee(e: Partial<SimEmployee> & { fields?: Record<string, string> }): SimEmployee {
    const name = e.name ?? `HR-EMP-${String(++this.employeeSeq).padStart(5, '0')}`;
    // Other text keys given beside `fields` ({"attendance_device_id": "1005"}, as Frappe's own
    // Employee has them) are fields too: a new-user trial's employee came out with none, in silence.
    const loose = Object.entries(e as Record<string, unknown>).filter(
      ([k, v]) => !KNOWN_EMPLOYEE_KEYS.has(k) && (typeof v === 'string' || typeof v === 'number'),
    );
    const rec: SimEmployee = {
      name,
      employee_name: e.employee_name ?? name,
      status: e.status ?? 'Active',
      fields: { ...Object.fromEntries(loose.map(([k, v]) => [k, String(v)])), ...(e.fields ?? {}) },
      ...(e.default_shift ? { default_shift: e.default_shift } : {}),
    };
    this.employees.set(name, rec);
    return rec;
  }

  /**
   * Whether the Employee table has the column `field`: its standard fields (erpnext/hrms
   * employee.json), and any field an employee of the simulator was given (a custom field).
   */
  hasEmployeeField(field: string): boolean {
    if (STANDARD_EMPLOYEE_FIELDS.has(field)) return true;
    for (const e of this.employees.values()) if (field in e.fields) return true;
    return false;
  }

  /** frappe.db.get_values("Employee", {field: value}): the first match, in creation order. */
  findEmployee(field: string, value: string): SimEmployee | undefined {
    for (const e of this.employees.values())
      if (field === 'name' ? e.name === value : e.fields[field] === value) return e;
    return undefined;
  }

  /** validate_duplicate_log: same employee, time and log_type. */
  findDuplicate(employee: string, time: string, logType: string | null): SimCheckin | undefined {
    return this.byKey.get(`${employee}|${time}|${logType ?? ''}`);
  }

  addCheckin(c: Omit<SimCheckin, 'name' | 'doctype' | 'creation'>, now: Date): SimCheckin {
    const mm = String(now.getUTCMonth() + 1).padStart(2, '0');
    const name = `EMP-CKIN-${mm}-${now.getUTCFullYear()}-${String(++this.checkinSeq).padStart(6, '0')}`;
    const rec: SimCheckin = { ...c, name, doctype: 'Employee Checkin', creation: frappeDatetime(now) };
    this.checkins.push(rec);
    this.byKey.set(`${rec.employee}|${rec.time}|${rec.log_type ?? ''}`, rec);
    return rec;
  }

  addShiftType(s: Partial<SimShiftType> & { name: string }): SimShiftType {
    const rec: SimShiftType = {
      name: s.name,
      determine_check_in_and_check_out: s.determine_check_in_and_check_out ?? ALTERNATING,
      last_sync_of_checkin: s.last_sync_of_checkin ?? null,
    };
    this.shiftTypes.set(s.name, rec);
    return rec;
  }

  clear(): void {
    this.employees.clear();
    this.checkins.length = 0;
    this.byKey.clear();
    this.shiftTypes.clear();
    this.employeeSeq = 0;
    this.checkinSeq = 0;
  }
}

/** 'YYYY-MM-DD HH:mm:ss.SSSSSS' as Frappe's JSON shows a datetime (str(datetime)). */
export function frappeDatetime(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds() * 1000, 6)}`;
}

/**
 * A timestamp as frappe.utils.get_datetime reads the usual forms ('YYYY-MM-DD HH:mm:ss[.ffffff]',
 * a 'T' between), normalised to 'YYYY-MM-DD HH:mm:ss' (Employee Checkin.time is a Datetime field);
 * undefined when it is not one.
 */
export function readTimestamp(v: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/.exec(v.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00'] = m;
  const t = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s);
  const back = new Date(t);
  if (back.getUTCDate() !== +d! || back.getUTCMonth() !== +mo! - 1 || +h! > 23 || +mi! > 59 || +s > 59)
    return undefined;
  return `${y}-${mo}-${d} ${h}:${mi}:${s}`;
}
