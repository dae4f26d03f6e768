import { cannotStart } from '../delivery/cannot-start.js';
import type { OldestClaim, RefusedPunches, RefusedRecords } from '../journal/types.js';
import { STAND_IN_SERIAL } from '../punch.js';
import { causeNamesTerminal } from '../sources/poll-outcome.js';
import { describeStep, stepSize, type ClockStep } from '../util/clock-steps.js';
import { DISK_FAIL_BYTES, DISK_WARN_BYTES } from '../util/disk.js';
import { ALERT, deliveryTrouble, type Alert } from './alert-words.js';
import { defaultCredentialAlert } from './credential-alert.js';
import { heldBehindRefusedAlert, refusalAlerts } from './refusals.js';
import type { DiskSyncFigures, StatusReport, TerminalStatus } from './types.js';

export { punches, seconds, span } from './alert-words.js';

const MIN = 60_000;
/** The journal busy for less than this is ordinary contention, not an alert. */
export const BUSY_ALERT_MS = 2000;
/** Punches in flight longer than this (or 4 request deadlines, if longer) are stuck, not slow. */
const INFLIGHT_ALERT_MS = 15 * MIN;
/** A terminal offline for less than this is a blip, not an alert. */
export const OFFLINE_ALERT_MS = 5 * MIN;
const SKEW_ALERT_SECONDS = 120;
/**
 * A device swapped at a terminal's address is an alert this long: long enough to see a swap that was
 * not meant (two terminals' addresses crossed), not for ever for one that was (a broken terminal
 * replaced); `punchgate terminals` keeps the old serial beside the new one.
 */
export const SERIAL_CHANGED_ALERT_MS = 24 * 60 * MIN;
/**
 * The journal's disk is slow when one sync in ten takes this long or more (a healthy SD card takes
 * 5 to 50 ms, an SSD under 1), over enough syncs that one hiccup is not the disk.
 */
export const SLOW_DISK_SYNC_MS = 500;
export const SLOW_DISK_MIN_SYNCS = 10;
/** Whether the journal's disk syncs say it is slow (the status's alert, and `punchgate check`'s warning). */
export const diskIsSlow = (d: DiskSyncFigures): boolean =>
  d.syncs >= SLOW_DISK_MIN_SYNCS && d.p90Ms >= SLOW_DISK_SYNC_MS;

/**
 * A terminal whose trouble only the admin can fix (a Hikvision terminal "reception refuses the
 * password: ...", "reception cannot be polled: no password ..."): its last error begins with its
 * own name. Said at once and as it is, not as "unreachable" after five minutes.
 */
const needsAdmin = (t: { name: string; lastError: string | null }) =>
  t.lastError !== null && causeNamesTerminal(t.name, t.lastError);

/** What the alerts need from the journal and the config besides the report. */
export interface AlertFacts {
  /** Refused punches (rejected and dead) by message, code and state: grouped by cause in the alerts. */
  refused: readonly RefusedPunches[];
  /** Punches of a sink that pairs punches in order (Odoo) waiting behind a refused one of the same person. */
  heldBehindRefused?: number;
  quarantine: { terminal: string; reason: string; count: number; from: string; to: string; message?: string | null }[];
  inflight: OldestClaim | undefined;
  /** The longest one HRMS request may take (connect + answer deadlines). */
  requestBoundMs: number;
  /** Delivery failing this long is an alert (delivery.alertAfterMinutes). */
  deliveryAlertAfterMs: number;
  /** Where the default sink's settings are in the config, for words that name one: `hrms`, or `sinks[NAME]`. */
  defaultSinkKeys?: string;
  /** Terminals whose clock punchgate sets (syncClock: true). */
  syncClock: ReadonlySet<string>;
  /** Records the journal refused at its door lately (a code against the text rule), per terminal. */
  refusedRecords?: readonly RefusedRecords[];
  /** Steps of the box's wall clock the daemon saw lately. */
  clockSteps?: readonly ClockStep[];
}

/**
 * When punchgate run stopped (its last status log), or null while it runs. Stopped, nobody polls,
 * listens or delivers: what it last saw is said as of then, not as if it had gone on for as long
 * as it has been stopped.
 */
export function daemonStoppedAt(r: Pick<StatusReport, 'daemon'>, now: number): number | null {
  if (!r.daemon || r.daemon.running) return null;
  return Math.min(r.daemon.statusLogAt ? Date.parse(r.daemon.statusLogAt) : now, now);
}

/** Active alerts, most urgent first: each a cause and its fix (alert-words.ts has every wording). */
export function alertsFor(r: StatusReport, facts: AlertFacts, now: number): Alert[] {
  const out: Alert[] = [];
  const ms = (s: string | null) => (s ? Date.parse(s) : null);
  const steps = facts.clockSteps ?? [];
  const netS = steps.reduce((n, s) => n + s.deltaMs, 0) / 1000;
  const behindS = netS <= -2 ? -netS : 0;
  // A terminal off the box by what the box stepped agrees with the box's clock before the step: the box stepped.
  const boxStepExplains = (skew: number) => Math.abs(netS) >= 2 && Math.abs(skew + netS) < SKEW_ALERT_SECONDS;

  const stoppedAt = daemonStoppedAt(r, now);
  const free = r.journal.freeBytes;
  // A daemon stopped by a full disk only stops again when started: the fix is the space first.
  const diskFull = free !== null && free < DISK_FAIL_BYTES;
  if (r.daemon && !r.daemon.running)
    out.push(ALERT.daemonDown(ms(r.daemon.statusLogAt), diskFull, r.daemon.lastStop, Boolean(r.config?.failure)));
  else if (r.daemon?.stale) out.push(ALERT.daemonStuck(ms(r.daemon.statusLogAt)));
  const c = r.config;
  // Stopped, the copy is what `punchgate status` read itself: what a start would run on.
  if (c?.runningOn === 'last-good') out.push(ALERT.configOnCopy(c, stoppedAt !== null));
  if (c?.runningOn === 'last-good' && c.fallback?.deliveryHeld) out.push(ALERT.configHoldsDelivery(c));
  // Running on the copy, that alert says the file does not load; "would start on its last good
  // copy" is for a daemon that still runs on what it loaded.
  else if (c?.failure && c.runningOn !== 'last-good') out.push(ALERT.configBroken(c));
  // A reload that could not apply some settings: the file is not fully in force until a restart.
  if (c?.restartPending?.length) out.push(ALERT.restartPending(c.file, c.restartPending, c.loadedAt));
  const busy = ms(r.journal.busySince);
  if (busy !== null && now - busy >= BUSY_ALERT_MS) {
    out.push(ALERT.journalBusy(now - busy, r.journal.heldPunches, r.journal.path, r.terminals));
  }
  if (free !== null && free < DISK_WARN_BYTES) out.push(ALERT.disk(free, free < DISK_FAIL_BYTES));
  const sync = r.journal.diskSync;
  if (sync && diskIsSlow(sync)) out.push(ALERT.journalDiskSlow(sync));
  const cp = r.journal.checkpoints;
  if (cp?.thread === 'failed') out.push(ALERT.checkpointsOnMainThread(ms(cp.failedAt), cp.error, cp.failures));
  // No usable token (nothing was sent) or one the HRMS refused: the same words as /readyz.
  const credential = defaultCredentialAlert(r.delivery, ms(r.delivery.authFailedSince), r.delivery.credential);
  if (credential) out.push(credential);
  const failing = ms(r.delivery.failingSince);
  const deliveredUntil = Math.max(stoppedAt ?? now, failing ?? 0);
  const unbuilt =
    r.delivery.auth !== 'failed' && cannotStart({ failingSince: failing, lastError: r.delivery.lastError });
  if (unbuilt) {
    // No retry mends it: said at once, not after delivery.alertAfterMinutes.
    out.push(
      ALERT.cannotStart({
        sink: r.sinks?.find((s) => s.default)?.name ?? 'hrms',
        isDefault: true,
        lastError: r.delivery.lastError ?? '',
        since: failing,
        waiting: r.punches.pending + r.punches.inflight,
      }),
    );
  } else if (
    r.delivery.auth !== 'failed' &&
    failing !== null &&
    deliveredUntil - failing >= facts.deliveryAlertAfterMs
  ) {
    out.push(
      ALERT.deliveryFailing({
        forMs: deliveredUntil - failing,
        stopped: stoppedAt !== null,
        waiting: r.punches.pending + r.punches.inflight,
        reason: deliveryTrouble(r.delivery.lastError, facts.defaultSinkKeys),
        nextTryAt: ms(r.delivery.nextTryAt),
        probing: r.delivery.probing,
      }),
    );
  }
  out.push(...clockStepAlerts(steps, behindS));
  const boxOff = boxClockOff(r.terminals, boxStepExplains);
  if (boxOff) out.push(ALERT.boxClockOff(boxOff.names, boxOff.skewSeconds));
  // The box's own clock explains the terminals' offsets: no alert of each saying to set its clock.
  const skewExplained = (skew: number) => boxStepExplains(skew) || boxOff !== null;
  for (const t of r.terminals) out.push(...terminalAlerts(t, facts, now, stoppedAt, skewExplained));
  const bySerial = new Map<string, string[]>();
  for (const t of r.terminals) if (t.serial) bySerial.set(t.serial, [...(bySerial.get(t.serial) ?? []), t.name]);
  for (const [serial, names] of bySerial) if (names.length > 1) out.push(ALERT.sameSerial(serial, names));
  const claim = facts.inflight;
  if (claim && now - claim.claimedAt > Math.max(INFLIGHT_ALERT_MS, 4 * facts.requestBoundMs)) {
    out.push(ALERT.inflightStuck(claim.punches, now - claim.claimedAt, claim.holders));
  }
  for (const x of facts.refusedRecords ?? []) out.push(ALERT.refusedRecords(x));
  // Refused and given-up punches, one line per cause (dead punches are refused ones the HRMS kept refusing).
  out.push(...refusalAlerts(facts.refused));
  out.push(...heldBehindRefusedAlert(facts.heldBehindRefused ?? 0));
  // Punches recorded while a terminal's clock was behind keep saying so after its clock is right again.
  let behind = 0;
  for (const q of facts.quarantine) {
    if (q.reason !== 'behind') continue;
    behind += q.count;
    const t = r.terminals.find((x) => x.name === q.terminal);
    out.push(ALERT.quarantinedBehind({ ...q, push: t?.kind === 'adms', syncClock: setsClock(t?.kind) }));
  }
  // In the future: per terminal, with the offset seen and the setting that lets such punches through.
  for (const q of facts.quarantine) {
    if (q.reason !== 'future') continue;
    const offset = /in the future: ([+-]\d+) s/.exec(q.message ?? '')?.[1];
    if (offset === undefined) continue;
    behind += q.count;
    const t = r.terminals.find((x) => x.name === q.terminal);
    out.push(
      ALERT.quarantinedFuture({
        ...q,
        offsetSeconds: Number(offset),
        push: t?.kind === 'adms',
        syncClock: setsClock(t?.kind),
      }),
    );
  }
  // A time that does not exist: nothing can send them, so no release is offered.
  for (const q of facts.quarantine) {
    if (q.reason !== 'no-time') continue;
    behind += q.count;
    out.push(ALERT.quarantinedNoTime(q));
  }
  const other = r.punches.quarantined - behind;
  if (other > 0) out.push(ALERT.quarantined(other));
  return out;
}

/**
 * Two or more terminals with a known clock, every one of them off the box beyond the alert and
 * all by the same amount (within the alert's threshold of each other): the box's clock is the
 * likelier one to be wrong. One terminal alone cannot tell, nor can terminals of which one is in
 * step. Null when the box's own step explains them (clockStepAlerts says that). `punchgate check`
 * asks it of the clocks it reads.
 */
export function sameClockOffset(
  known: ReadonlyArray<{ name: string; skewSeconds: number }>,
  boxStepExplains: (skewSeconds: number) => boolean = () => false,
): { names: string[]; skewSeconds: number } | null {
  if (known.length < 2) return null;
  const skews = known.map((t) => t.skewSeconds);
  if (skews.some((s) => Math.abs(s) < SKEW_ALERT_SECONDS || boxStepExplains(s))) return null;
  if (Math.max(...skews) - Math.min(...skews) >= SKEW_ALERT_SECONDS) return null;
  const sorted = [...skews].sort((a, b) => a - b);
  return { names: known.map((t) => t.name), skewSeconds: sorted[Math.floor(sorted.length / 2)]! };
}

/** sameClockOffset of the terminals whose clock the status knows (not stale). */
function boxClockOff(
  terminals: readonly TerminalStatus[],
  boxStepExplains: (skewSeconds: number) => boolean,
): { names: string[]; skewSeconds: number } | null {
  const known = terminals.flatMap((t) =>
    !t.stale && t.skewSeconds !== null ? [{ name: t.name, skewSeconds: t.skewSeconds }] : [],
  );
  return sameClockOffset(known, boxStepExplains);
}

/** `stoppedAt`: when punchgate run stopped, if it is not running (its last status log). */
function terminalAlerts(
  t: TerminalStatus,
  facts: AlertFacts,
  now: number,
  stoppedAt: number | null,
  boxStepExplains: (skewSeconds: number) => boolean,
): Alert[] {
  const out: Alert[] = [];
  const ms = (s: string | null) => (s ? Date.parse(s) : null);
  const since = ms(t.offlineSince);
  const finished = ms(t.lastSuccessAt);
  const polled = ms(t.lastPollAt);
  // Stopped, a terminal is known unreachable until its last poll (`punchgate poll` may have polled
  // since), and a push terminal silent until the receiver stopped.
  const seenUntil = stoppedAt === null ? now : Math.min(t.push ? stoppedAt : (polled ?? stoppedAt), now);
  if (!t.online && needsAdmin(t) && t.problem) {
    out.push(ALERT.terminalNeedsAdmin(t, t.problem));
  } else if (!t.online && !t.listenerDown && since !== null && seenUntil - since >= OFFLINE_ALERT_MS) {
    const stopped = stoppedAt !== null;
    out.push(
      t.push
        ? ALERT.pushSilent(t, seenUntil, stopped)
        : ALERT.terminalUnreachable(t, seenUntil - since, t.problem ?? unknownProblem(t), stopped ? seenUntil : null),
    );
  }
  // Reached, but the last poll did not finish (a poll deadline passed, a reply dropped, a short download).
  if (t.kind === 'zk' && t.online && t.problem && polled !== null && (finished === null || finished < polled)) {
    out.push(ALERT.pollsDoNotFinish(t, finished, t.problem));
  }
  // A serial reader that is open but whose bytes make no reads (framing-problem.ts).
  if (t.kind === 'serial' && t.online && needsAdmin(t) && t.problem) out.push(ALERT.serialUnframed(t.problem));
  if (STAND_IN_SERIAL.test(t.serial)) out.push(ALERT.standInSerial(t));
  const swappedAt = t.serialChangedAt ? Date.parse(t.serialChangedAt) : null;
  if (t.previousSerial && (swappedAt === null || now - swappedAt < SERIAL_CHANGED_ALERT_MS))
    out.push(ALERT.serialChanged(t));
  if (
    !t.stale &&
    t.skewSeconds !== null &&
    Math.abs(t.skewSeconds) >= SKEW_ALERT_SECONDS &&
    !boxStepExplains(t.skewSeconds)
  ) {
    out.push(ALERT.clockSkew(t, facts.syncClock.has(t.name)));
  }
  return out;
}

/** An offline terminal with no recorded error (a daemon that stopped while it was away). */
function unknownProblem(t: TerminalStatus): { cause: string; fix: string } {
  return { cause: 'no answer', fix: `punchgate check tests terminal ${t.name} and says what to do` };
}

/**
 * The box clock stepped (wall clock against the monotonic clock): said as such, so that nobody
 * blames the terminals, with what punchgate did about it and what to do.
 */
function clockStepAlerts(steps: readonly ClockStep[], behindS: number): Alert[] {
  const out = steps.slice(-5).map((s) => ALERT.clockStep(describeStep(s), s.deltaMs < 0, steps.length));
  if (behindS > 0) out.push(ALERT.boxClockBehind(stepSize(behindS * 1000)));
  return out;
}

/** The kinds of terminal whose config has `syncClock` (punchgate sets their clock): ZK and Hikvision. */
function setsClock(kind: string | undefined): boolean {
  return kind === 'zk' || kind === 'hikvision';
}
