import type { AttendancePunch, AttendanceSender } from '../hrms/attendance.js';
import type { AttendanceAnswer } from '../hrms/answer.js';
import type { SinkPunch, SinkSender, SinkSendOptions } from './types.js';

/** A punch as the seed contract takes it: code, wall-clock time and the journal's id (nothing else travels). */
export function toAttendancePunch(p: SinkPunch): AttendancePunch {
  return { biometriccode: p.biometricCode, logDate: p.logTime, devicelogId: p.devicelogId };
}

/** The seed HRMS (src/hrms's AttendanceClient, or any AttendanceSender) as a sink sender. */
export class SeedSinkSender implements SinkSender {
  constructor(readonly client: AttendanceSender & { route?(): string }) {}

  send(punches: readonly SinkPunch[], opts: SinkSendOptions): Promise<AttendanceAnswer> {
    return this.client.send(punches.map(toAttendancePunch), opts);
  }

  close(): Promise<void> {
    return this.client.close?.() ?? Promise.resolve();
  }

  route(): string {
    return this.client.route?.() ?? 'directly';
  }
}
