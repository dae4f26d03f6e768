import type { FrappeFaults } from './faults.js';
import {
  MSG,
  nameTaken,
  thrown,
  unknownColumn,
  validation,
  type FrappeLanguage,
  type FrappeReply,
  type FrappeVersion,
} from './messages.js';
import { readTimestamp, STRICT_LOG_TYPE, type FrappeStore } from './store.js';

/**
 * add_log_based_on_employee_field as frappe/hrms runs it (employee_checkin.py): the required
 * arguments, the employee looked up by `employee_fieldname`, then the new document's validate():
 * validate_active_employee, validate_duplicate_log (same employee, time and log_type), fetch_shift
 * (a shift "Strictly based on Log Type" needs log_type unless skip_auto_attendance),
 * validate_distance_from_shift_location (v15+: a location, when HR Settings track it). Every refusal is
 * frappe.throw: a ValidationError, HTTP 417.
 */
export function addCheckin(
  args: Record<string, unknown>,
  store: FrappeStore,
  faults: FrappeFaults,
  now: Date,
  site: { version: FrappeVersion; language: FrappeLanguage } = { version: 15, language: 'en' },
): FrappeReply {
  const str = (k: string): string | undefined => {
    const v = args[k];
    if (v === undefined || v === null || v === '') return undefined;
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  };
  const value = str('employee_field_value');
  const timestamp = str('timestamp');
  if (!value || !timestamp) return validation(MSG.required);
  const field = str('employee_fieldname') ?? 'attendance_device_id';
  if (!store.hasEmployeeField(field)) return unknownColumn(field);
  const employee = store.findEmployee(field, value);
  if (!employee) return validation(MSG.noEmployee(field, value));
  // doc.insert() checks the right to create (frappe/model/document.py insert: check_permission
  // "create") after the lookup above and before validate(): a code no Employee has is refused
  // with Frappe's words even for a user without that right.
  if (faults.noPermission) return thrown(403, 'PermissionError', MSG.noPermission('Employee Checkin'));
  if (faults.refuseCodes.includes(value)) return validation(MSG.refusedBySim(value));
  const time = readTimestamp(timestamp);
  if (!time) return validation(MSG.badTimestamp(timestamp));
  const logTypeRaw = str('log_type');
  if (logTypeRaw !== undefined && logTypeRaw !== 'IN' && logTypeRaw !== 'OUT')
    return validation(`Log Type cannot be "${logTypeRaw}". It should be one of "", "IN", "OUT"`);
  const logType = logTypeRaw ?? null;
  const skip = Number(str('skip_auto_attendance') ?? 0) === 1 ? 1 : 0;
  if (employee.status === 'Inactive') return validation(MSG.inactive(employee.name), 'InactiveEmployeeStatusError');
  const dup = store.findDuplicate(employee.name, time, logType);
  if (dup) return validation(MSG.duplicate(dup.name, site.version, site.language));
  const shift = employee.default_shift ? store.shiftTypes.get(employee.default_shift) : undefined;
  if (shift && shift.determine_check_in_and_check_out === STRICT_LOG_TYPE && !logType && !skip)
    return validation(MSG.logTypeRequired(shift.name));
  // validate() goes on with set_geolocation and validate_distance_from_shift_location.
  if (faults.geolocationTracking && !str('latitude') && !str('longitude')) return validation(MSG.noLocation);
  // db_insert: a series behind its documents names the new one as the newest existing one.
  const taken = faults.seriesBehind ? store.checkins.at(-1) : undefined;
  if (taken) return nameTaken('Employee Checkin', taken.name);
  const doc = store.addCheckin(
    {
      employee: employee.name,
      employee_name: employee.employee_name,
      time,
      log_type: logType,
      device_id: str('device_id') ?? null,
      skip_auto_attendance: skip,
      shift: shift?.name ?? null,
    },
    now,
  );
  return {
    httpStatus: 200,
    body: { message: { ...doc, owner: 'api-user@example.com', docstatus: 0 } },
    summary: `200 ${doc.name}`,
  };
}
