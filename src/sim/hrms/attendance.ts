import { isLogTime } from '../../punch.js';
import { MSG } from './messages.js';
import { failure, type Reply } from './reply.js';
import type { AttendanceStore, EmployeeStore } from './store.js';
import type { HrmsFaults, PunchOutcome } from './types.js';

export interface AttendanceContext {
  store: AttendanceStore;
  employees: EmployeeStore;
  /** Whether unknown codes and disabled employees are refused (see RosterMode). */
  rosterActive: () => boolean;
  now: () => number;
  keyStyle: 'capital' | 'lower';
  /** What makes a punch a resend of one recorded before (see HrmsSimOptions.dedupBy). */
  dedupBy: 'code-time' | 'devicelogId';
}

interface PunchResult {
  status: boolean;
  message: string;
}

function codeOf(p: unknown): unknown {
  return p !== null && typeof p === 'object' ? (p as Record<string, unknown>).biometriccode : undefined;
}

/** Decides one punch; the order matters: a re-sent punch already in the table is a duplicate even if the employee left since. */
function judge(p: unknown, ctx: AttendanceContext): { outcome: PunchOutcome; message: string } {
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return { outcome: 'invalid', message: MSG.notObject };
  const { biometriccode: code, logDate, devicelogId } = p as Record<string, unknown>;
  if (code === undefined || code === null || code === '') return { outcome: 'invalid', message: MSG.codeRequired };
  if (typeof code !== 'string') return { outcome: 'invalid', message: MSG.codeNotString };
  if (logDate === undefined || logDate === null || logDate === '')
    return { outcome: 'invalid_date', message: MSG.logDateRequired };
  if (typeof logDate !== 'string' || !isLogTime(logDate))
    return { outcome: 'invalid_date', message: MSG.invalidLogDate(logDate) };
  if (ctx.dedupBy === 'devicelogId') {
    if (typeof devicelogId === 'string' && ctx.store.hasDevicelogId(devicelogId))
      return { outcome: 'duplicate', message: MSG.duplicateId };
  } else if (ctx.store.has(code, logDate)) return { outcome: 'duplicate', message: MSG.duplicate };
  if (ctx.rosterActive()) {
    const emp = ctx.employees.byBiometricCode(code);
    if (!emp) return { outcome: 'unknown_code', message: MSG.unknownCode(code) };
    if (emp.blocked) return { outcome: 'disabled', message: MSG.disabled(code) };
  }
  return { outcome: 'added', message: MSG.added };
}

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** "Push multiple attendance records": one Payload element per processed punch, in order. */
export function handleAttendance(
  form: Map<string, string>,
  requestNo: number,
  faults: HrmsFaults,
  ctx: AttendanceContext,
): Reply {
  const raw = form.get('punches_data');
  let punches: unknown;
  try {
    punches = raw === undefined ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    punches = undefined;
  }
  if (!Array.isArray(punches)) return failure(400, MSG.punchesNotArray);

  if (faults.maxBatch !== null && punches.length > faults.maxBatch) {
    return failure(413, MSG.batchTooLarge(punches.length, faults.maxBatch));
  }
  const poison = new Set(faults.poisonCodes);
  const poisoned = punches.map(codeOf).find((c): c is string => typeof c === 'string' && poison.has(c));
  if (poisoned !== undefined) return failure(400, MSG.poisoned(poisoned));

  const taken = faults.shortPayload > 0 ? punches.slice(0, faults.shortPayload) : punches;
  const results: PunchResult[] = [];
  let added = 0;
  for (const p of taken) {
    const { outcome, message } = judge(p, ctx);
    const obj = p !== null && typeof p === 'object' ? (p as Record<string, unknown>) : {};
    const devicelogId = obj.devicelogId;
    ctx.store.record({
      biometriccode: text(obj.biometriccode),
      logDate: text(obj.logDate),
      ...(devicelogId !== undefined && devicelogId !== null ? { devicelogId: text(devicelogId) } : {}),
      outcome,
      requestNo,
      at: ctx.now(),
    });
    if (outcome === 'added') added++;
    results.push({ status: outcome === 'added', message });
  }

  const body = ctx.keyStyle === 'lower' ? { status: true, payload: results } : { Status: true, Payload: results };
  return { httpStatus: 200, body, summary: `punches=${punches.length} processed=${taken.length} added=${added}` };
}
