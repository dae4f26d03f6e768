import type { FrappeSinkConfig } from '../config/sinks.js';
import type { TerminalConfig } from '../config/terminals.js';
import { HrmsHttp } from '../hrms/http.js';
import { isBusyJournalError, isFatalJournalError } from '../journal/errors.js';
import type { Journal } from '../journal/journal.js';
import type { SinkTokens } from '../sinks/build.js';
import { FrappeShiftSync, progressInZone } from '../sinks/frappe/shift-sync.js';
import type { Clock } from '../util/clock.js';
import { messageOf } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { boxIanaZone } from '../util/box-zone.js';

/** A failing shift sync is logged at most this often (the first failure and the recovery always). */
export const SHIFT_SYNC_LOG_EVERY_MS = 10 * 60_000;

/** What the status shows of one sink's shift sync (LiveFacts.shiftSync). */
export interface ShiftSyncFacts {
  /** Since when every round has failed (epoch ms); null: it works, or has not run. */
  failingSince: number | null;
  lastError: string | null;
  /** last_sync_of_checkin punchgate set, per shift type, since the daemon started. */
  lastSet: Record<string, string>;
  lastSetAt: number | null;
  /** Shift types that stand at a punch this sink refused, by name, since when (the last round's reading). */
  held: Record<string, ShiftSyncHeld>;
}

/** A shift type held at a refused punch: the punch's terminal and log time, and since when it holds it. */
export interface ShiftSyncHeld {
  terminal: string;
  logTime: string;
  since: number;
}

export interface ShiftSyncRunnerDeps {
  sink: FrappeSinkConfig & { shiftSync: NonNullable<FrappeSinkConfig['shiftSync']> };
  /** The first sink: its state is the punches table's (the journal query takes no sink name then). */
  isDefault: boolean;
  journal: Journal;
  terminals: readonly TerminalConfig[];
  tokens: SinkTokens;
  logger: Logger;
  clock: Clock;
  onFatal: (e: unknown) => void;
}

/**
 * One Frappe sink's shift sync in the daemon (docs/sinks-frappe.md, "Shift sync"): every
 * `shiftSyncIntervalSeconds` it reads from the journal each listed terminal's progress and sets
 * the shift types whose last_sync_of_checkin moves forward (FrappeShiftSync). It runs beside the
 * delivery loop, on its own connection: it never holds a punch back, and a failure only waits
 * for the next round.
 */
export class ShiftSyncRunner {
  private readonly sync: FrappeShiftSync;
  private readonly http: HrmsHttp;
  private readonly zones: { name: string; timezone?: string | undefined }[];
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private failingSince: number | null = null;
  private lastError: string | null = null;
  private lastLoggedAt = -Infinity;
  private lastSetAt: number | null = null;
  private held: Record<string, ShiftSyncHeld> = {};

  constructor(private readonly d: ShiftSyncRunnerDeps) {
    const s = d.sink;
    this.http = new HrmsHttp({
      baseUrl: s.baseUrl,
      timeoutMs: s.timeoutMs,
      connectTimeoutMs: Math.min(10_000, s.timeoutMs),
      connections: 1,
      ...(s.caFile ? { caFile: s.caFile } : {}),
    });
    this.sync = new FrappeShiftSync(this.http, s.baseUrl, s.shiftSync);
    const byName = new Map(d.terminals.map((t) => [t.name, t.timezone]));
    this.zones = this.sync.terminals().map((name) => ({ name, timezone: byName.get(name) }));
  }

  start(): void {
    void this.kick();
    this.timer = setInterval(() => void this.kick(), this.d.sink.shiftSyncIntervalSeconds * 1000);
    this.timer.unref();
  }

  /** A round now, unless one runs; resolves when the round (this one or the running one) ends. */
  kick(): Promise<void> {
    if (this.current || this.abort.signal.aborted) return this.current ?? Promise.resolve();
    this.current = this.round().finally(() => (this.current = undefined));
    return this.current;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.abort.abort();
    await this.current;
    await this.http.close();
  }

  facts(): ShiftSyncFacts {
    return {
      failingSince: this.failingSince,
      lastError: this.lastError,
      lastSet: Object.fromEntries(this.sync.state()),
      lastSetAt: this.lastSetAt,
      held: this.held,
    };
  }

  private async round(): Promise<void> {
    const { journal, sink, logger, clock } = this.d;
    let progress;
    try {
      progress = journal.shiftSyncProgress(this.d.isDefault ? undefined : sink.name, this.zones);
    } catch (e) {
      if (isFatalJournalError(e)) return this.d.onFatal(e);
      // Busy (another process writes): the next round reads it.
      if (isBusyJournalError(e)) return;
      return this.failed(`reading the journal: ${messageOf(e)}`);
    }
    this.noteHolds(progress);
    let token: string;
    try {
      token = this.d.tokens.get();
    } catch (e) {
      return this.failed(`no usable credential: ${messageOf(e)}`);
    }
    // The site's zone set: the punches went converted to it, so the shift types are set in it too.
    const site = this.d.sink.timezone;
    const zoneOf = new Map(this.zones.map((z) => [z.name, z.timezone ?? boxIanaZone()]));
    const told = site ? progressInZone(progress, (t) => zoneOf.get(t) ?? boxIanaZone(), site) : progress;
    const answers = await this.sync.round(told, { token, signal: this.abort.signal });
    if (this.abort.signal.aborted) return;
    const set = answers.filter((a) => a.kind === 'set');
    if (set.length > 0) this.lastSetAt = clock.now();
    for (const a of set)
      logger.debug({ sink: sink.name, shiftType: a.shiftType, lastSync: a.lastSync }, 'shift sync set');
    const bad = answers.find((a) => a.kind !== 'set');
    if (bad) return this.failed(bad.message);
    if (this.failingSince !== null) logger.info({ sink: sink.name }, `shift sync of sink ${sink.name} works again`);
    this.failingSince = null;
    this.lastError = null;
  }

  /** Keeps which shift types stand at a refused punch, and since when (the same punch: the same since). */
  private noteHolds(progress: Parameters<FrappeShiftSync['holds']>[0]): void {
    const now = this.d.clock.now();
    const next: Record<string, ShiftSyncHeld> = {};
    for (const h of this.sync.holds(progress)) {
      const before = this.held[h.shiftType];
      const same = before && before.terminal === h.terminal && before.logTime === h.logTime;
      next[h.shiftType] = { terminal: h.terminal, logTime: h.logTime, since: same ? before.since : now };
      if (!same)
        this.d.logger.warn(
          { sink: this.d.sink.name, shiftType: h.shiftType, terminal: h.terminal, logTime: h.logTime },
          `shift sync of sink ${this.d.sink.name}: Shift Type ${h.shiftType} waits at ${h.logTime}, where a punch of ${h.terminal} was refused by Frappe; Auto Attendance of that shift waits until it is delivered`,
        );
    }
    this.held = next;
  }

  private failed(message: string): void {
    const now = this.d.clock.now();
    const first = this.failingSince === null;
    // Never after now: a box clock stepped back left it ahead, and the shift-sync alert (after
    // delivery.alertAfterMinutes of failing) away for the step's length (an adversarial trial).
    this.failingSince = Math.min(this.failingSince ?? now, now);
    this.lastError = message;
    if (first || now - this.lastLoggedAt >= SHIFT_SYNC_LOG_EVERY_MS) {
      this.lastLoggedAt = now;
      this.d.logger.warn(
        { sink: this.d.sink.name, err: message },
        `shift sync of sink ${this.d.sink.name} failed: Frappe's last_sync_of_checkin stays where it was; punches are delivered all the same`,
      );
    }
  }
}
