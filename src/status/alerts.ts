import type { StatusReport } from './types.js';

const MIN = 60_000;
/** A terminal offline for less than this is a blip, not an alert. */
const OFFLINE_ALERT_MS = 5 * MIN;
const SKEW_ALERT_SECONDS = 120;
const STALL_ALERT_MS = 30 * MIN;

/** "09:12" today, "2026-11-21 09:12" on another day (box local time). */
export function clockTime(ms: number, now: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  const hm = `${p(d.getHours())}:${p(d.getMinutes())}`;
  return new Date(now).toDateString() === d.toDateString()
    ? hm
    : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${hm}`;
}

/** "3 h", "25 min", "2 d". */
export function span(ms: number): string {
  if (ms >= 48 * 60 * MIN) return `${Math.floor(ms / (24 * 60 * MIN))} d`;
  if (ms >= 60 * MIN) return `${Math.floor(ms / (60 * MIN))} h`;
  return `${Math.max(1, Math.floor(ms / MIN))} min`;
}

/** "1 punch", "14 punches". */
export const punches = (n: number) => `${n} ${n === 1 ? 'punch' : 'punches'}`;

/** "terminal lobby has not pushed for 12 min (last contact 09:14 from 192.168.10.7)". */
function pushSilence(t: StatusReport['terminals'][number], now: number): string {
  const last = t.push?.lastContactAt ? Date.parse(t.push.lastContactAt) : null;
  if (last === null) return `terminal ${t.name} has not pushed yet`;
  const from = t.push?.address ? ` from ${t.push.address}` : '';
  return `terminal ${t.name} has not pushed for ${span(now - last)} (last contact ${clockTime(last, now)}${from})`;
}

/** Active alerts in plain words, most urgent first. */
export function alertsFor(r: StatusReport, rejections: { message: string; count: number }[], now: number): string[] {
  const out: string[] = [];
  const ms = (s: string | null) => (s ? Date.parse(s) : null);

  if (r.delivery.auth === 'failed') {
    const since = ms(r.delivery.authFailedSince);
    out.push(
      `HRMS refuses the token${since ? ` since ${clockTime(since, now)}` : ''}: put a valid token in the token file (it is re-read without a restart)`,
    );
  }
  const oldestQueued = ms(r.oldestPending?.queuedAt ?? null);
  if (
    r.delivery.auth !== 'failed' &&
    oldestQueued !== null &&
    now - oldestQueued > STALL_ALERT_MS &&
    r.delivery.lastError
  ) {
    out.push(
      `delivery stalled for ${span(now - oldestQueued)}: ${punches(r.punches.pending + r.punches.inflight)} waiting; last error: ${r.delivery.lastError}`,
    );
  }
  for (const t of r.terminals) {
    const since = ms(t.offlineSince);
    if (!t.online && since !== null && now - since >= OFFLINE_ALERT_MS) {
      out.push(
        t.push
          ? pushSilence(t, now)
          : `terminal ${t.name} unreachable for ${span(now - since)}${t.lastError ? ` (${t.lastError})` : ''}`,
      );
    }
    if (t.previousSerial) {
      out.push(
        `terminal ${t.name} now answers with serial ${t.serial} instead of ${t.previousSerial}: device swapped or address changed (its punches are kept apart)`,
      );
    }
    if (t.skewSeconds !== null && Math.abs(t.skewSeconds) >= SKEW_ALERT_SECONDS) {
      out.push(
        `terminal ${t.name} clock is ${span(Math.abs(t.skewSeconds) * 1000)} ${t.skewSeconds > 0 ? 'ahead' : 'behind'}`,
      );
    }
  }
  for (const rej of rejections.slice(0, 5)) {
    out.push(`${punches(rej.count)} rejected: ${rej.message || 'no message'}`);
  }
  if (r.punches.dead > 0)
    out.push(`${punches(r.punches.dead)} given up (dead): fix the cause, then punchgate punches retry --state dead`);
  if (r.punches.quarantined > 0) {
    out.push(
      `${punches(r.punches.quarantined)} quarantined (implausible time): check the terminal clocks, then punchgate punches release`,
    );
  }
  return out;
}
