import { NO_TOKEN } from '../delivery/health.js';
import type { OldestClaim, RefusedPunches, RefusedRecords } from '../journal/types.js';
import { STAND_IN_SERIAL } from '../punch.js';
import { DISK_FAIL_BYTES, DISK_WARN_BYTES, humanBytes } from '../util/disk.js';
import { refusalAlerts } from './refusals.js';
import { describeStep, stepSize, type ClockStep } from '../util/clock-steps.js';
import type { StatusReport } from './types.js';
import { localTime } from '../util/local-time.js';

const MIN = 60_000;
/** The journal busy for less than this is ordinary contention, not an alert. */
const BUSY_ALERT_MS = 2000;
/** Punches in flight longer than this (or 4 request deadlines, if longer) are stuck, not slow. */
const INFLIGHT_ALERT_MS = 15 * MIN;
/** A terminal offline for less than this is a blip, not an alert. */
const OFFLINE_ALERT_MS = 5 * MIN;
const SKEW_ALERT_SECONDS = 120;
const STALL_ALERT_MS = 30 * MIN;

/**
 * A last error that begins with the terminal's own name is one only the admin can fix (a
 * Hikvision terminal "reception refuses the password: ...", "reception cannot be polled: no
 * password ..."): said at once and as it is, not as "unreachable" after five minutes.
 */
const needsAdmin = (t: { name: string; lastError: string | null }) => t.lastError?.startsWith(`${t.name} `) === true;

/** "45 s" below two minutes, else as `span`. */
export function seconds(ms: number): string {
  return ms < 2 * MIN ? `${Math.max(0, Math.round(ms / 1000))} s` : span(ms);
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
  return `terminal ${t.name} has not pushed for ${span(now - last)} (last contact ${localTime(last)}${from})`;
}

/** What the alerts need from the journal besides the report. */
export interface AlertFacts {
  /** Refused punches (rejected and dead) by message, code and state: grouped by cause in the alerts. */
  refused: readonly RefusedPunches[];
  quarantine: { terminal: string; reason: string; count: number; from: string; to: string }[];
  inflight: OldestClaim | undefined;
  /** The longest one HRMS request may take (connect + answer deadlines). */
  requestBoundMs: number;
  /** Records the journal refused at its door lately (a code against the text rule), per terminal. */
  refusedRecords?: readonly RefusedRecords[];
  /** Steps of the box's wall clock the daemon saw lately. */
  clockSteps?: readonly ClockStep[];
}

/** Active alerts in plain words, most urgent first. */
export function alertsFor(r: StatusReport, facts: AlertFacts, now: number): string[] {
  const out: string[] = [];
  const ms = (s: string | null) => (s ? Date.parse(s) : null);
  const steps = facts.clockSteps ?? [];
  const netS = steps.reduce((n, s) => n + s.deltaMs, 0) / 1000;
  const behindS = netS <= -2 ? -netS : 0;
  // A terminal off the box by what the box stepped agrees with the box's clock before the step: the box stepped.
  const boxStepExplains = (skew: number) => Math.abs(netS) >= 2 && Math.abs(skew + netS) < SKEW_ALERT_SECONDS;

  if (r.daemon && !r.daemon.running) {
    out.push(
      'punchgate run is not running (nothing holds the journal lock): no punch is collected or delivered; start it: sudo systemctl start punchgate',
    );
  } else if (r.daemon?.stale) {
    const at = ms(r.daemon.statusLogAt);
    out.push(
      `punchgate run has not rewritten the status log ${at === null ? 'at all' : `since ${localTime(at)}`}: it may be stuck; look at journalctl -u punchgate and restart it (sudo systemctl restart punchgate)`,
    );
  }
  const busy = ms(r.journal.busySince);
  if (busy !== null && now - busy >= BUSY_ALERT_MS) {
    out.push(
      `journal busy for ${seconds(now - busy)} (another process holds it): ${punches(r.journal.heldPunches)} held in memory, written as soon as it is free; if it lasts, find the process (fuser -v ${r.journal.path}) and end it`,
    );
  }
  const free = r.journal.freeBytes;
  if (free !== null && free < DISK_WARN_BYTES) {
    out.push(
      `disk ${free < DISK_FAIL_BYTES ? 'almost full' : 'nearly full'}: only ${humanBytes(free)} free for the journal: free space (apt-get clean, journalctl --vacuum-size=100M) or move journal.path to a larger disk`,
    );
  }
  if (r.delivery.auth === 'failed' && r.delivery.lastError?.startsWith(NO_TOKEN)) {
    // Nothing was sent: the HRMS did not refuse anything, punchgate has no token to send.
    const since = ms(r.delivery.authFailedSince);
    out.push(`${r.delivery.lastError}${since ? ` (since ${localTime(since)})` : ''}`);
  } else if (r.delivery.auth === 'failed') {
    const since = ms(r.delivery.authFailedSince);
    out.push(
      `HRMS refuses the token${since ? ` since ${localTime(since)}` : ''}: put a valid token in the token file (it is re-read without a restart)`,
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
  out.push(...clockStepAlerts(steps, behindS));
  for (const t of r.terminals) {
    const since = ms(t.offlineSince);
    if (!t.online && needsAdmin(t)) {
      out.push(`terminal ${t.lastError}`);
    } else if (!t.online && since !== null && now - since >= OFFLINE_ALERT_MS) {
      out.push(
        t.push
          ? pushSilence(t, now)
          : `terminal ${t.name} unreachable for ${span(now - since)}${t.lastError ? ` (${t.lastError})` : ''}`,
      );
    }
    // Reached, but the last poll did not finish (a poll deadline passed, a reply dropped, a short download).
    const finished = ms(t.lastSuccessAt);
    const polled = ms(t.lastPollAt);
    if (t.kind === 'zk' && t.online && t.lastError && polled !== null && (finished === null || finished < polled)) {
      const last = finished === null ? 'none yet' : localTime(finished);
      out.push(`terminal ${t.name}: polls reach it but do not finish (last complete poll: ${last}): ${t.lastError}`);
    }
    if (STAND_IN_SERIAL.test(t.serial)) {
      out.push(
        `terminal ${t.name} reports a serial number that is not one (too long, or with control or invisible characters): its punches are kept apart under ${t.serial}; check the terminal's firmware and that no other device answers at its address`,
      );
    }
    if (t.previousSerial) {
      out.push(
        `terminal ${t.name} now answers with serial ${t.serial} instead of ${t.previousSerial}: device swapped or address changed (its punches are kept apart)`,
      );
    }
    if (t.skewSeconds !== null && Math.abs(t.skewSeconds) >= SKEW_ALERT_SECONDS && !boxStepExplains(t.skewSeconds)) {
      out.push(
        `terminal ${t.name} clock is ${span(Math.abs(t.skewSeconds) * 1000)} ${t.skewSeconds > 0 ? 'ahead' : 'behind'}`,
      );
    }
  }
  const bySerial = new Map<string, string[]>();
  for (const t of r.terminals) if (t.serial) bySerial.set(t.serial, [...(bySerial.get(t.serial) ?? []), t.name]);
  for (const [serial, names] of bySerial) {
    if (names.length < 2) continue;
    out.push(
      `terminals ${names.join(' and ')} answer with the same serial ${serial}: one device listed twice? Its punches are stored once (known by its serial); remove the extra entry from the config`,
    );
  }
  const claim = facts.inflight;
  if (claim && now - claim.claimedAt > Math.max(INFLIGHT_ALERT_MS, 4 * facts.requestBoundMs)) {
    out.push(
      `${punches(claim.punches)} in flight for ${span(now - claim.claimedAt)}, far longer than a request can take (${claim.holders === 1 ? 'one process holds them' : `${claim.holders} processes hold them`}): they go back to the queue when their process ends; if punchgate run hangs, restart it`,
    );
  }
  for (const x of facts.refusedRecords ?? []) {
    out.push(
      `terminal ${x.terminal}: ${x.count === 1 ? '1 record' : `${x.count} records`} refused since ${localTime(x.firstAt)}, not journalled (last ${localTime(x.lastAt)}: ${x.lastReason}, code "${x.lastCode}"): a code must be 1 to 64 letters, digits or symbols without blanks or control characters; correct that user's code on the terminal (punchgate punches shows what was journalled)`,
    );
  }
  // Refused and given-up punches, one line per cause (dead punches are refused ones the HRMS kept refusing).
  out.push(...refusalAlerts(facts.refused));
  // Punches recorded while a terminal's clock was behind keep saying so after its clock is right again.
  let behind = 0;
  for (const q of facts.quarantine) {
    if (q.reason !== 'behind') continue;
    behind += q.count;
    out.push(
      `terminal ${q.terminal}: ${punches(q.count)} quarantined, dated ${q.from.slice(0, 16)} to ${q.to.slice(0, 16)}: recorded while its clock was behind; check them (punchgate punches --state quarantined --terminal ${q.terminal}); punchgate punches release --terminal ${q.terminal} sends them with these times`,
    );
  }
  const other = r.punches.quarantined - behind;
  if (other > 0) {
    out.push(
      `${punches(other)} quarantined (implausible time): check the terminal clocks, then punchgate punches release`,
    );
  }
  return out;
}

/**
 * The box clock stepped (wall clock against the monotonic clock): said as such, so that nobody
 * blames the terminals, with what punchgate did about it and what to do.
 */
function clockStepAlerts(steps: readonly ClockStep[], behindS: number): string[] {
  const out = steps
    .slice(-5)
    .map((s) =>
      s.deltaMs < 0
        ? `${describeStep(s)} (its wall clock against its monotonic clock): polls, retries and status writes kept their pace and cron schedules were re-armed`
        : `${describeStep(s)} (its wall clock against its monotonic clock; or the box was asleep): polls, retries and status writes kept their pace and cron schedules were re-armed`,
    );
  if (steps.length > 5) out.unshift(`the box clock stepped ${steps.length} times in the last 24 h; the last 5:`);
  if (behindS > 0)
    out.push(
      `the box clock is now ${stepSize(behindS * 1000)} behind where it ran before its step: terminal times up to that far ahead of the box are taken as right (journalled, no clock alert for the terminals); set the box clock right (timedatectl status; NTP: timedatectl set-ntp true) and find what stepped it`,
    );
  return out;
}
