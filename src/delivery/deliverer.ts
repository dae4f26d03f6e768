import type { DeliveryConfig, HrmsConfig } from '../config/schema.js';
import { addressShown } from '../config/web-address.js';
import { AttendanceClient, type AttendanceSender } from '../hrms/attendance.js';
import { isBusyJournalError, isFatalJournalError } from '../journal/errors.js';
import type { DeliveryQueue, DeliveryRecord, OutboundPunch, PunchOutcome } from '../journal/types.js';
import { SeedSinkSender } from '../sinks/seed.js';
import type { Direction, SinkPunch, SinkSender } from '../sinks/types.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { Backoff } from '../util/backoff.js';
import { BatchSizer } from './batch-size.js';
import { emptyCounters, type DeliveryCounters } from './counters.js';
import { drainQueue, type DrainOptions, type DrainReport } from './drain.js';
import { answeredState, DeliveryHealth, NO_TOKEN, type CredentialWords, type DeliveryStateAccess } from './health.js';
import { compilePatterns, describeTally, type OutcomeTally } from './outcomes.js';
import { countingQueue, PendingCount } from './pending.js';
import { retryAfterWait, retryAfterWords } from './retry-after.js';
import { sendClaimed, type Failure } from './send-claimed.js';
import { abortableSleep, type Sleep } from './sleep.js';
import type { BatchOptions, BatchReport } from './types.js';
import type { HoldPolicy } from '../sinks/hold-policy.js';
import { boxIanaZone } from '../util/box-zone.js';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

export type { BatchOptions, BatchReport } from './types.js';

/** While the journal is busy (another process holds it), delivery looks again this often. */
const JOURNAL_BUSY_RETRY_MS = 1000;
/** During a long burst of full batches (a backlog), the info line comes at most this often. */
const BURST_LINE_EVERY_MS = 60_000;
/** A probe of an unreachable HRMS waits this long for its answer at most. */
const PROBE_DEADLINE_MS = 5000;
/**
 * During a pause, this often delivery looks whether it is over before its time: the token file
 * holds another token (after a refused one), or another process (`punchgate flush`) got an
 * answer since the pause began. A stat of one file and one row read.
 */
export const PAUSE_WATCH_MS = 1000;

/** What the delivery state held of the last success and attempt when a pause began (pauseOver). */
interface AnswerSeen {
  success: number | null;
  attempt: number | null;
}

/** Where the bearer token comes from (TokenSource); `file` names it in the auth-failure log line. */
export interface TokenProvider {
  get(): string;
  file?(): string | undefined;
}

export interface DelivererOptions {
  queue: DeliveryQueue;
  state: DeliveryStateAccess;
  tokens: TokenProvider;
  /** The seed HRMS: an AttendanceClient is made for it unless a sender is given. */
  hrms?: HrmsConfig;
  delivery: DeliveryConfig;
  logger: Logger;
  clock: Clock;
  /** [0, 1) source for the backoff jitter; default Math.random. */
  random?: () => number;
  /** Resolves after `ms` or as soon as `signal` aborts; never rejects. */
  sleep?: Sleep;
  /** A seed-contract sender; default: an AttendanceClient for `hrms`. */
  sender?: AttendanceSender;
  /** Any sink's sender (Frappe, Odoo, the seed through SeedSinkSender): wins over `sender`. */
  sinkSender?: SinkSender;
  /** How the log and the state name the sink's credential and where it is set; default the seed HRMS's token. */
  credential?: CredentialWords;
  /** The sink's name, for the log lines; undefined: the default sink, said "the HRMS" as ever. */
  sink?: string;
  /** The sink's address as shown (addressShown), for the failure line; default that of `hrms`, when given. */
  address?: string;
  /** A terminal's IANA time zone (its `timezone`), for sinks that store UTC; default the box's. */
  timezoneOf?: (terminal: string) => string | undefined;
  /** A punch's direction where its terminal's `direction` setting gives one (src/punch/direction.ts). */
  directionOf?: (punch: OutboundPunch) => Direction | undefined;
  /**
   * The sink pairs each person's punches in time order (Odoo): a person's later punches wait while
   * an earlier one is refused (journal/held-behind-refused.ts). Default false.
   */
  holdBehindRefused?: HoldPolicy;
}

/** A claimed punch as a sink sender takes it (SinkPunch). */
export function sinkPunchOf(p: OutboundPunch, o: Pick<DelivererOptions, 'timezoneOf' | 'directionOf'> = {}): SinkPunch {
  const terminal = p.terminal ?? '';
  const direction = o.directionOf?.(p);
  return {
    devicelogId: p.devicelogId,
    biometricCode: p.biometricCode,
    logTime: p.logTime,
    terminal,
    device: p.device ?? '',
    timezone: o.timezoneOf?.(terminal) ?? boxIanaZone(),
    ...(direction ? { direction } : {}),
  };
}

/**
 * Moves punches from the journal to the HRMS: one request in flight at a time, batches in
 * log-time order. Every claimed punch ends settled (the HRMS said something about it) or
 * released (back to the queue, no attempt charged): nothing is lost. The one batch claimed
 * ahead while a request is out (see deliverBatch) is sent next or released; a crash leaves it
 * inflight in the journal, which returns it to the queue at the next start.
 */
export class Deliverer {
  private readonly sender: SinkSender;
  private readonly ownsSender: boolean;
  private readonly duplicatePatterns: RegExp[];
  private readonly backoff: Backoff;
  private readonly sizer: BatchSizer;
  private readonly health: DeliveryHealth;
  private readonly sleep: Sleep;
  private readonly stats: DeliveryCounters = emptyCounters();
  /** The journal's queue, with what this process claims and returns counted for the log line of each batch. */
  private readonly queue: DeliveryQueue;
  private readonly pending: PendingCount;
  /**
   * On the monotonic clock (elapsedMs), when the next batch may be sent (backoff; 0: now): a step
   * of the box clock neither stretches nor cuts the wait.
   */
  private retryAt = 0;
  /**
   * The last failure is one a probe (an empty batch, nothing recorded) can see cured, so it is
   * probed during the backoff: 'unreachable' (refused, timeout, 5xx) is cured by any HTTP answer
   * below 500; 'unusable' (a 2xx page that is not the HRMS's JSON, such as a captive portal or a
   * proxy's login page, or a request that did not reach the endpoint) only by a usable answer.
   * Without it a cured portal waited out the backoff (minutes) while a cured outage took 30 s.
   */
  private unreachable: 'unreachable' | 'unusable' | false = false;
  /** When the next probe goes out (epoch ms), while one is planned. */
  private probeAt: number | null = null;
  /**
   * The pause under way (see PAUSE_WATCH_MS): the last success and attempt the state held when it
   * began (undefined: unreadable then), and for a refused or missing token, the token that was refused
   * ('' for none), so that another one ends it at once. Its length is retryAt's (monotonic).
   */
  private pause: { seen: AnswerSeen | undefined; refusedToken?: string } | undefined;
  /** The token the last request was sent with. */
  private lastToken = '';
  private wakeIdle: (() => void) | undefined;
  private wakePending = false;
  /**
   * Answers of the batches of the burst under way (batches sent back to back while punches wait),
   * for its one info line; `since`: when its counting started, on the monotonic clock (a step
   * back of the box clock once held the once-a-minute line for the length of the step).
   */
  private burst: (OutcomeTally & { since: number }) | undefined;
  /** The next batch, claimed while the previous request was out, with the size and option it was claimed under. */
  private ahead: { batch: OutboundPunch[]; size: number; ignoreBackoff: boolean } | undefined;
  /**
   * The answers of the last batch, not yet written (see deliverBatch): settled with the next claim
   * in one transaction while the next request is out, or by flushHeld before anything else.
   */
  private held: PunchOutcome[] | undefined;

  /** How the log names the sink: "the HRMS" (the default sink, as ever) or "sink erp". */
  private readonly where: string;
  /** The words of the refusal lines (SendDeps: who, delivery, listRefused). */
  private readonly refusalWords: { who: string; delivery: string; listRefused: string };

  constructor(private readonly o: DelivererOptions) {
    this.where = o.sink === undefined ? 'the HRMS' : `sink ${o.sink}`;
    this.ownsSender = !o.sender && !o.sinkSender;
    this.pending = new PendingCount(o.queue, () => o.clock.now());
    this.queue = countingQueue(o.queue, this.pending);
    this.sender = o.sinkSender ?? new SeedSinkSender(o.sender ?? this.seedClient());
    this.duplicatePatterns = compilePatterns(o.delivery.patterns.duplicate);
    this.backoff = new Backoff(o.delivery.retry, o.random);
    this.sizer = new BatchSizer(o.delivery.batchSize);
    // The failure line names the address delivery calls: the admin sees which one is away.
    const address = o.address ?? (o.hrms ? addressShown(o.hrms.baseUrl) : undefined);
    this.health = new DeliveryHealth(o.state, o.logger, o.clock, o.credential, address);
    // The refusal lines name the sink and its address as the trouble lines do, and where all refused are listed.
    this.refusalWords = {
      who: this.health.who,
      delivery: this.health.delivery,
      listRefused: `punchgate punches${o.sink === undefined ? '' : ` --sink ${o.sink}`} --state rejected`,
    };
    this.sleep = o.sleep ?? abortableSleep;
  }

  private seedClient(): AttendanceClient {
    if (!this.o.hrms) throw new Error('a Deliverer needs a sender, or the seed HRMS (hrms) to make one for');
    return new AttendanceClient({
      hrms: this.o.hrms,
      authPatterns: compilePatterns(this.o.delivery.patterns.authFailure),
    });
  }

  /** The working batch size (lowered after HTTP 413). */
  get batchSize(): number {
    return this.sizer.current;
  }

  counters(): DeliveryCounters {
    return structuredClone(this.stats);
  }

  /** Epoch ms before which the deliverer will not send (0 when it may send now). */
  get backoffUntil(): number {
    const wait = this.retryAt - elapsedMs(this.o.clock);
    return this.retryAt === 0 ? 0 : this.o.clock.now() + wait;
  }

  /** When delivery tries next (a batch or a probe of the HRMS), null when it is not waiting. */
  get nextTryAt(): number | null {
    const retryAt = this.backoffUntil;
    if (retryAt <= this.o.clock.now()) return null;
    return this.probeAt !== null ? Math.min(this.probeAt, retryAt) : retryAt;
  }

  /** Whether the HRMS is probed while delivery waits (it was unreachable). */
  get probing(): boolean {
    return this.unreachable && this.o.delivery.probeIntervalMs > 0;
  }

  /** New punches were ingested: an idle `run` loop looks at the queue now. */
  wake(): void {
    if (this.wakeIdle) this.wakeIdle();
    else this.wakePending = true;
  }

  /**
   * Takes in a second sink's backlog (punches journalled while it was away, SinkQueue.takeInStep)
   * a bounded step at a time, the event loop free between steps: its claim picks the oldest only
   * once every punch is taken in (a late older punch first), and would otherwise take in a long
   * backlog in one go. Nothing for a queue that has no steps (the default sink's).
   */
  private async takeInBacklog(signal: AbortSignal | undefined): Promise<void> {
    const step = this.queue.takeInStep;
    if (!step) return;
    while (!signal?.aborted && step()) await yieldToLoop();
  }

  /** Claims up to the working batch size, sends it (splitting it if refused), settles and reports. */
  async deliverBatch(opts: BatchOptions = {}): Promise<BatchReport> {
    const { clock } = this.o;
    const queue = this.queue;
    const report: BatchReport = {
      result: 'idle',
      claimed: 0,
      requests: 0,
      released: 0,
      rejectedIds: [],
      waitMs: 0,
      delivered: 0,
      duplicates: 0,
      rejected: 0,
      unknown: 0,
    };
    // A sink's backlog taken in before the claim, a step at a time with the loop free between.
    await this.takeInBacklog(opts.signal);
    // The answers of the batch before, if held: written while this batch is on the wire (with the
    // claim of the next one), or now with this claim when nothing was claimed ahead.
    let prev = this.held;
    this.held = undefined;
    let batch: OutboundPunch[];
    try {
      const ahead = this.takeAhead(opts);
      if (ahead) batch = ahead;
      else {
        const p = prev;
        prev = undefined;
        batch = this.settleAndClaim(p, opts, true);
      }
    } catch (e) {
      if (prev) this.settleAndClaim(prev, opts, false);
      throw e;
    }
    if (batch.length === 0) {
      this.endBurst();
      return report;
    }
    report.claimed = batch.length;
    this.health.attempted(clock.now());
    const deps = {
      queue,
      sender: this.sender,
      duplicatePatterns: this.duplicatePatterns,
      stats: this.stats,
      logger: this.o.logger,
      toSink: (p: OutboundPunch) => sinkPunchOf(p, this.o),
      ...this.refusalWords,
      // A clean answer is written with the next claim when a next batch is already claimed (a
      // burst: the next deliverBatch follows at once); otherwise at once, as ever.
      holdSettle: () => this.ahead !== undefined,
    };
    this.lastToken = '';
    const token = () => (this.lastToken = this.o.tokens.get());
    const sending = sendClaimed(batch, token, opts.signal, deps, report);
    // While the HRMS works on the request, the journal work: the answers of the batch before are
    // settled and the next batch claimed, in one transaction (one disk sync), so it costs no wall
    // time (still one request at a time). In setImmediate: by then the request has been written
    // (Node hands it to the socket on the next tick). The next batch only when this one was full,
    // i.e. more is probably waiting.
    let claimError: unknown;
    const wantAhead = batch.length === this.sizer.current && !opts.signal?.aborted;
    const held = prev;
    const claimingAhead =
      wantAhead || held
        ? new Promise<void>((resolve) =>
            setImmediate(() => {
              try {
                const next = this.settleAndClaim(held, opts, wantAhead);
                if (next.length > 0)
                  this.ahead = { batch: next, size: this.sizer.current, ignoreBackoff: opts.ignoreBackoff ?? false };
              } catch (e) {
                claimError = e; // reported once this batch is settled
              }
              resolve();
            }),
          )
        : undefined;
    let sent: Awaited<typeof sending>;
    try {
      sent = await sending;
    } catch (e) {
      await claimingAhead;
      this.releaseAhead();
      throw e;
    }
    await claimingAhead;
    if (sent.held) this.held = sent.held;
    // Anything but a clean answer means a pause or a smaller batch: the batch claimed ahead goes back.
    // So does an answer that left punches unknown (a call lost, a lock): they go back to the queue
    // and are sent again before the batch claimed ahead, which may hold the same people's later
    // punches (an HRMS that pairs check-ins and check-outs, Odoo, refused the earlier ones after it).
    // With a sink that holds a person's later punches behind a refused one, a refusal too: the batch
    // claimed ahead was claimed before it was written, and may hold that person's later punches.
    if (sent.failure || report.unknown > 0 || (this.o.holdBehindRefused && report.rejected > 0)) this.releaseAhead();
    if (claimError !== undefined) {
      this.flushHeld();
      throw claimError;
    }
    const smallerHelps = sent.failure?.kind === 'too-large' && this.sizer.shrink(sent.failedSize) < sent.failedSize;
    // A clean answer (conclude's 'ok'): the burst goes on while the next batch is claimed ahead (this
    // one was full: more is probably waiting). Anything else ends it, its line before the failure's.
    const clean = !sent.failure && !sent.badReply && report.delivered + report.duplicates + report.rejected > 0;
    if (!clean) this.noteBurst(report, false);
    this.conclude(report, sent.failure, sent.badReply, batch.length, smallerHelps, sent.held !== undefined);
    if (clean) this.noteBurst(report, this.ahead !== undefined);
    return report;
  }

  /** The daemon loop: deliver while punches are due; idle until due, polled or woken; stop on abort. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.o;
    while (!signal.aborted) {
      const wait = this.retryAt - elapsedMs(clock);
      if (wait > 0) {
        // An unreachable HRMS is asked cheaply every few seconds, whatever the backoff: delivery
        // resumes within seconds of its return instead of minutes.
        const probeIn = this.probing ? this.probeDelay() : Infinity;
        if (probeIn < wait) {
          this.probeAt = clock.now() + probeIn;
          await this.sleep(probeIn, signal);
          this.probeAt = null;
          if (!signal.aborted && (await this.probe(signal))) {
            this.retryAt = 0;
            this.backoff.reset();
            this.unreachable = false;
          }
          continue;
        }
        // In slices: a new token or a flush's delivery ends the pause at once (pauseOver).
        await this.sleep(this.pause ? Math.min(wait, PAUSE_WATCH_MS) : wait, signal);
        if (!signal.aborted && this.pauseOver()) {
          this.retryAt = 0;
          this.backoff.reset();
          this.unreachable = false;
        }
        continue;
      }
      let report: BatchReport;
      try {
        report = await this.deliverBatch({ signal });
      } catch (e) {
        // A journal error: fatal ones end the loop (the daemon exits), others are retried later.
        if (isFatalJournalError(e)) throw e;
        if (isBusyJournalError(e)) {
          // Another process holds the journal (said once by the journal): look again shortly,
          // without touching the HRMS backoff.
          logger.debug('journal busy: delivery waits');
          this.retryAt = elapsedMs(clock) + JOURNAL_BUSY_RETRY_MS;
          continue;
        }
        this.endBurst();
        logger.error({ err: e }, 'delivery error; retrying later');
        this.retryAt = elapsedMs(clock) + Math.max(1000, this.backoff.next());
        continue;
      }
      if (report.result === 'idle') await this.idle(signal);
    }
    this.endBurst();
    this.flushHeld();
    this.releaseAhead();
  }

  /**
   * Whether the pause under way is over before its time: the token file now holds another token
   * than the refused one (or a token, where there was none), or another process delivered since
   * the pause began (a `punchgate flush` beside the daemon got through: the HRMS takes punches).
   */
  private pauseOver(): boolean {
    const pause = this.pause;
    if (!pause) return false;
    if (pause.refusedToken !== undefined) {
      let token: string | undefined;
      try {
        token = this.o.tokens.get();
      } catch {
        token = undefined; // still none usable
      }
      if (token !== undefined && token !== pause.refusedToken) {
        // In the sink's own words: an Odoo sink's API key changed, not an HRMS token.
        const { who, what } = this.o.credential ?? { who: 'HRMS', what: 'token' };
        this.o.logger.info(
          pause.refusedToken === ''
            ? `${who === 'HRMS' ? 'an HRMS' : `the ${who}`} ${what} can be read now: delivery tries it at once`
            : `the ${who} ${what} changed: delivery tries the new one at once`,
        );
        this.pause = undefined;
        return true;
      }
    }
    let now: DeliveryRecord;
    try {
      now = this.o.state.get();
    } catch {
      return false; // a busy journal: looked at again in a moment
    }
    // Only another process writes the state meanwhile (this one sends nothing). What it wrote is
    // told by the values changing, not by comparing them with the wall clock: after a step back of
    // the box clock an older success read as new, ending every pause at once (the refused token
    // sent every second for the length of the step), and a flush's success after a step back read
    // as old (the pause held on after the flush got through).
    const seen = pause.seen;
    if (seen === undefined) return false;
    if (now.lastSuccessAt !== null && now.lastSuccessAt !== seen.success) {
      this.o.logger.info(
        'punches were delivered by another process (punchgate flush) during the pause: delivery resumes now',
      );
      this.pause = undefined;
      return true;
    }
    // An attempt the HRMS answered, accepting the credential, without taking a punch (a flush whose
    // punches it all refused): no success (lastSuccessAt kept), but the HRMS answers and takes the
    // token, which is what the pause waits for. An attempt that failed leaves its error written.
    if (now.lastAttemptAt !== null && now.lastAttemptAt !== seen.attempt && answeredState(now)) {
      const who = this.o.credential?.who ?? 'HRMS';
      this.o.logger.info(
        `the ${who} answered another process (punchgate flush) during the pause: delivery resumes now`,
      );
      this.pause = undefined;
      return true;
    }
    return false;
  }

  /** The last success and attempt the delivery state holds (undefined: the journal could not be read now). */
  private answerSeen(): AnswerSeen | undefined {
    try {
      const r = this.o.state.get();
      return { success: r.lastSuccessAt, attempt: r.lastAttemptAt };
    } catch {
      return undefined;
    }
  }

  /** Between half and all of delivery.probeIntervalMs (jittered, like the backoff, so sites do not probe in step). */
  private probeDelay(): number {
    const every = this.o.delivery.probeIntervalMs;
    return Math.floor(every / 2 + (this.o.random ?? Math.random)() * (every / 2));
  }

  /**
   * Whether the HRMS answers now: an empty batch (nothing recorded: what `punchgate check` sends),
   * with its own short deadline. Any HTTP answer but a 5xx counts (a refused token is then found
   * by the next batch, and said as such). Never throws.
   */
  private async probe(signal: AbortSignal): Promise<boolean> {
    let token: string;
    try {
      token = this.o.tokens.get();
    } catch {
      return true; // no token: the next batch says so, the HRMS is not the trouble
    }
    const deadline = AbortSignal.timeout(PROBE_DEADLINE_MS);
    try {
      const answer = await this.sender.send([], { token, signal: AbortSignal.any([signal, deadline]) });
      const answers = answer.kind !== 'transient' || (answer.httpStatus !== undefined && answer.httpStatus < 500);
      const usable = answer.kind !== 'transient' && answer.kind !== 'bad-reply' && answer.kind !== 'request-failed';
      const up = this.unreachable === 'unusable' ? usable : answers;
      this.o.logger.debug(
        { answer: answer.kind, httpStatus: answer.httpStatus },
        up ? 'HRMS probe: it answers' : 'HRMS probe: still unreachable',
      );
      if (up) this.health.reachable(answer);
      return up;
    } catch (e) {
      this.o.logger.debug({ err: e instanceof Error ? e.message : String(e) }, 'HRMS probe failed');
      return false;
    }
  }

  /** Delivers what is deliverable now (for `flush`), retrying temporary failures for up to maxWaitMs. */
  async drain(opts: DrainOptions): Promise<DrainReport> {
    try {
      return await drainQueue(this, this.queue, this.o.clock, this.sleep, opts);
    } finally {
      this.flushHeld();
      this.endBurst();
      this.releaseAhead();
    }
  }

  async close(): Promise<void> {
    this.flushHeld();
    this.releaseAhead();
    if (this.ownsSender) await this.sender.close?.();
  }

  /** The batch claimed ahead, if claimed under the same batch size and option; else it goes back first. */
  private takeAhead(opts: BatchOptions): OutboundPunch[] | undefined {
    const ahead = this.ahead;
    if (ahead && ahead.size === this.sizer.current && ahead.ignoreBackoff === (opts.ignoreBackoff ?? false)) {
      this.ahead = undefined;
      const skip = opts.skipIds;
      if (!skip) return ahead.batch;
      const back = ahead.batch.filter((p) => skip.has(p.id));
      if (back.length > 0) this.queue.release(back.map((p) => p.id));
      const batch = ahead.batch.filter((p) => !skip.has(p.id));
      return batch.length > 0 ? batch : undefined;
    }
    this.releaseAhead();
    return undefined;
  }

  /**
   * Settles `held` (the answers of the batch before) and, when `claim`, claims the next batch: in
   * one transaction where the queue has one (one disk sync for both). The answers are written
   * whatever happens to the claim: if the transaction fails they are settled on their own (kept
   * for later by a busy journal), and then the claim's error is thrown.
   */
  private settleAndClaim(held: PunchOutcome[] | undefined, opts: BatchOptions, claim: boolean): OutboundPunch[] {
    if (!held) return claim ? this.claim(opts) : [];
    const state = this.health.takeHeld();
    const write = () => {
      this.queue.settle(held);
      if (state) this.o.state.update(state);
    };
    const together = this.queue.together;
    if (!together) {
      write();
      return claim ? this.claim(opts) : [];
    }
    try {
      return together(() => {
        write();
        return claim ? this.claim(opts) : [];
      });
    } catch (e) {
      if (isFatalJournalError(e)) throw e; // the daemon stops; the claims return at the next start
      write(); // undone with the transaction: on its own now
      throw e;
    }
  }

  /** Writes the answers held from the last batch (before a pause, a stop, the end of a drain). */
  private flushHeld(): void {
    const held = this.held;
    this.held = undefined;
    if (held) this.settleAndClaim(held, {}, false);
  }

  /** Returns the batch claimed ahead to the queue (a pause, a stop, a smaller batch size). */
  private releaseAhead(): void {
    if (!this.ahead) return;
    const ids = this.ahead.batch.map((p) => p.id);
    this.ahead = undefined;
    this.queue.release(ids);
  }

  private claim(opts: BatchOptions): OutboundPunch[] {
    const size = this.sizer.current;
    const skip = opts.skipIds ?? new Set<number>();
    // A punch answered earlier in this drain may be due again at once (always with ignoreBackoff):
    // claim enough to get past those, then hand them straight back.
    const limit = size + skip.size;
    const claimed = this.queue.claim(limit, {
      ignoreBackoff: opts.ignoreBackoff ?? false,
      ...(this.o.holdBehindRefused
        ? { holdBehindRefused: true, holdNothing: this.o.holdBehindRefused.holdNothing }
        : {}),
    });
    const wanted = claimed.filter((p) => !skip.has(p.id));
    const batch = wanted.slice(0, size);
    const back = [...claimed.filter((p) => skip.has(p.id)), ...wanted.slice(size)];
    if (back.length > 0) this.queue.release(back.map((p) => p.id));
    return batch;
  }

  /** Sets the result, the wait before the next batch and the persisted state. */
  private conclude(
    report: BatchReport,
    failure: Failure | undefined,
    badReply: string | undefined,
    claimed: number,
    smallerHelps: boolean,
    /** The batch's settle is held (written with the next claim): so is its state. */
    held = false,
  ): void {
    const { delivery, clock } = this.o;
    const settled = report.delivered + report.duplicates + report.rejected;
    const summary = describeTally(claimed, report);
    const withCause = (cause: string) =>
      settled + report.unknown > 0 ? `${summary}; ${cause}` : `${claimed} not delivered: ${cause}`;

    if (!failure && settled === 0 && !badReply) badReply = 'the HRMS answered without settling any punch';
    if (!failure && !badReply) {
      report.result = 'ok';
      this.backoff.reset();
      this.sizer.succeeded(claimed >= this.sizer.current);
      this.health.answered(summary, held, report.delivered + report.duplicates > 0);
    } else if (!failure) {
      // Answered, but some punches stayed unknown: what it settled stays settled; back off for the rest.
      report.result = 'bad-reply';
      report.message = badReply;
      report.waitMs = this.backoff.next();
      this.health.badReply(badReply!, withCause(badReply!), report.waitMs);
    } else if (failure.kind === 'aborted') {
      report.result = 'aborted';
      this.health.stopped(withCause('stopped, punches returned to the queue'));
    } else if (failure.kind === 'auth') {
      report.result = 'auth';
      report.message = failure.message;
      report.waitMs = delivery.authRetryMs;
      this.health.authFailed(
        failure.message,
        withCause(this.health.refusedWords),
        report.waitMs,
        this.o.tokens.file?.(),
      );
    } else if (failure.kind === 'no-token') {
      report.result = 'auth';
      report.message = `${NO_TOKEN}: ${failure.message}`;
      report.waitMs = delivery.authRetryMs;
      this.health.noToken(failure.message, withCause('no usable HRMS token'), report.waitMs);
    } else if (failure.kind === 'request-failed' || failure.kind === 'refused') {
      // Not a verdict on the punches: nothing charged, backoff, and a person is told what to check.
      report.result = failure.kind;
      report.message = failure.kind === 'refused' ? `HTTP ${failure.httpStatus}: ${failure.message}` : failure.message;
      report.waitMs = this.backoff.next();
      this.health.requestFailed(report.message, withCause(`request failed: ${report.message}`), report.waitMs);
    } else if (failure.kind === 'bad-reply') {
      report.result = 'bad-reply';
      report.message = failure.message;
      report.waitMs = this.backoff.next();
      this.health.badReply(failure.message, withCause(`answer not usable: ${failure.message}`), report.waitMs);
    } else if (failure.kind === 'too-large' && smallerHelps) {
      report.result = 'too-large';
      report.message = failure.message;
      this.health.failed(failure.message, withCause(`HTTP 413, batch size lowered to ${this.sizer.current}`));
    } else {
      // Transient, or a 413 that a smaller batch cannot cure: back off with full jitter.
      report.result = failure.kind === 'too-large' ? 'too-large' : 'transient';
      const asked = failure.kind === 'transient' ? (failure.retryAfterMs ?? 0) : 0;
      // A server that names its time is asked again then (at most delivery.retryAfterMaxMs), not
      // after a backoff grown by earlier failures (20 s asked would wait up to 5 min: a catch-up
      // resuming late). The failure is still counted, so a server that stops naming a time meets
      // the backoff where it was.
      const backoffWait = this.backoff.next();
      const bound = { retryAfterMaxMs: delivery.retryAfterMaxMs, baseMs: delivery.retry.baseMs };
      report.waitMs = asked > 0 ? retryAfterWait(asked, bound) : backoffWait;
      const who = this.o.credential?.who ?? 'HRMS';
      const message =
        asked > 0 ? `${failure.message}; ${retryAfterWords(who, clock.now(), asked, report.waitMs)}` : failure.message;
      report.message = message;
      this.health.transient(message, withCause(`temporary failure: ${failure.message}`), report.waitMs);
    }
    this.stats.batches[report.result]++;
    this.retryAt = report.waitMs > 0 ? elapsedMs(clock) + report.waitMs : 0;
    const tokenTrouble = failure?.kind === 'auth' || failure?.kind === 'no-token';
    this.pause =
      report.waitMs > 0
        ? {
            seen: this.answerSeen(),
            ...(tokenTrouble ? { refusedToken: failure.kind === 'auth' ? this.lastToken : '' } : {}),
          }
        : undefined;
    // Unreachable (no answer, or a 5xx) without the HRMS naming a time: probed meanwhile (see run).
    const unreachable =
      failure?.kind === 'transient' &&
      (failure.httpStatus === undefined || failure.httpStatus >= 500) &&
      failure.retryAfterMs === undefined;
    const unusable = failure?.kind === 'bad-reply' || failure?.kind === 'request-failed';
    this.unreachable = unreachable ? 'unreachable' : unusable ? 'unusable' : false;
  }

  /**
   * Adds a batch's answers to the burst under way; ends the burst (its info line) unless it goes
   * on, and during a long one says how far it got once a minute.
   */
  private noteBurst(r: BatchReport, goesOn: boolean): void {
    const now = elapsedMs(this.o.clock);
    const b = (this.burst ??= { delivered: 0, duplicates: 0, rejected: 0, unknown: 0, since: now });
    b.delivered += r.delivered;
    b.duplicates += r.duplicates;
    b.rejected += r.rejected;
    b.unknown += r.unknown;
    if (!goesOn || now - b.since >= BURST_LINE_EVERY_MS) this.endBurst();
  }

  /**
   * `sent 200 punches to the HRMS: 197 delivered, 3 refused; 41 pending`: one info line per burst of
   * batches the HRMS answered (a backlog of 100,000 is one line, or one a minute while it lasts),
   * so that a site admin can follow punches through the log. Pending: what still waits after it
   * (the batch claimed ahead included). Codes are never listed here.
   */
  private endBurst(): void {
    const r = this.burst;
    this.burst = undefined;
    if (!r) return;
    const answered = r.delivered + r.duplicates + r.rejected;
    if (answered === 0 || !this.o.logger.isLevelEnabled('info')) return;
    let pending: ReturnType<PendingCount['read']>;
    try {
      pending = this.pending.read();
    } catch {
      return; // a busy journal: the next burst's line counts again
    }
    const waiting = pending.n + (this.ahead?.batch.length ?? 0);
    this.o.logger.info(
      {
        delivered: r.delivered,
        duplicates: r.duplicates,
        refused: r.rejected,
        requeued: r.unknown,
        pending: waiting,
        ...(pending.exact ? {} : { pendingEstimated: true }),
      },
      deliveredLine(r, waiting, pending.exact, this.where),
    );
  }

  private async idle(signal: AbortSignal): Promise<void> {
    if (this.wakePending) {
      this.wakePending = false;
      return;
    }
    const now = this.o.clock.now();
    const next = this.queue.nextDueAt();
    let ms = this.o.delivery.pollIntervalMs;
    if (next !== null && next > now) ms = Math.min(ms, next - now);
    const woken = new AbortController();
    const onAbort = () => woken.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.wakeIdle = onAbort;
    try {
      await this.sleep(ms, woken.signal);
    } finally {
      this.wakeIdle = undefined;
      signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * `delivered 95 punches to the HRMS, 41 pending` when the HRMS took every one; otherwise what it did
 * with each: `sent 21 punches to the HRMS: 14 delivered, 7 refused; 41 pending`. The sent count is
 * every punch of the burst, the delivered count only those the HRMS took ("delivered 21 (7 refused)"
 * once read as 21 taken).
 */
export function deliveredLine(t: OutcomeTally, pending: number, exact = true, where = 'the HRMS'): string {
  const waiting = `${exact ? '' : 'about '}${pending} pending`;
  const sent = t.delivered + t.duplicates + t.rejected + t.unknown;
  const noun = sent === 1 ? 'punch' : 'punches';
  if (sent === t.delivered) return `delivered ${sent} ${noun} to ${where}, ${waiting}`;
  const parts = [`${t.delivered} delivered`];
  if (t.rejected) parts.push(`${t.rejected} refused`);
  if (t.duplicates) parts.push(`${t.duplicates} already there`);
  if (t.unknown) parts.push(`${t.unknown} unanswered, back in the queue`);
  return `sent ${sent} ${noun} to ${where}: ${parts.join(', ')}; ${waiting}`;
}
