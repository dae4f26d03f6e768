import type { AttendanceAnswer, AttendancePunch, AttendanceSender, SendOptions } from '../hrms/attendance.js';

/**
 * Wraps the HRMS sender to know whether a request is in flight and since when, so the
 * systemd watchdog can tell a delivery loop that makes progress from one that hangs.
 */
export class TimedSender implements AttendanceSender {
  inflightSince: number | null = null;

  constructor(
    private readonly inner: AttendanceSender,
    private readonly now: () => number,
  ) {}

  async send(punches: readonly AttendancePunch[], opts: SendOptions): Promise<AttendanceAnswer> {
    this.inflightSince = this.now();
    try {
      return await this.inner.send(punches, opts);
    } finally {
      this.inflightSince = null;
    }
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
