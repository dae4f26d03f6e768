import type { DeliveryConfig, HrmsConfig } from '../config/schema.js';
import { AttendanceClient, type AttendanceSender } from '../hrms/attendance.js';
import { isBusyJournalError, isFatalJournalError } from '../journal/errors.js';
import type { DeliveryQueue, OutboundPunch } from '../journal/types.js';
import { elapsedMs, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { Backoff } from '../util/backoff.js';
import { BatchSizer } from './batch-size.js';
import { emptyCounters, type DeliveryCounters } from './counters.js';
import { drainQueue, type DrainOptions, type DrainReport } from './drain.js';
import { DeliveryHealth, NO_TOKEN, type DeliveryStateAccess } from './health.js';
import { compilePatterns, describeTally, type OutcomeTally } from './outcomes.js';
import { countingQueue, PendingCount } from './pending.js';
import { sendClaimed, type Failure } from './send-claimed.js';
import { abortableSleep, type Sleep } from './sleep.js';
import type { BatchOptions, BatchReport } from './types.js';

export type { BatchOptions, BatchReport } from './types.js';

/** While the journal is busy (another process holds it), delivery looks again this often. */
const JOURNAL_BUSY_RETRY_MS = 1000;

/** Where the bearer token comes from (TokenSource); `file` names it in the auth-failure log line. */
export interface TokenProvider {
  get(): string;
  file?(): string | undefined;
}

export interface DelivererOptions {
  queue: DeliveryQueue;
  state: DeliveryStateAccess;
  tokens: TokenProvider;
  hrms: HrmsConfig;
  delivery: DeliveryConfig;
  logger: Logger;
  clock: Clock;
  /** [0, 1) source for the backoff jitter; default Math.random. */
  random?: () => number;
  /** Resolves after `ms` or as soon as `signal` aborts; never rejects. */
  sleep?: Sleep;
  /** Default: an AttendanceClient for `hrms`. */
  sender?: AttendanceSender;
}

/**
 * Moves punches from the journal to the HRMS: one request in flight at a time, batches in
 * log-time order. Every claimed punch ends settled (the HRMS said something about it) or
 * released (back to the queue, no attempt charged): nothing is lost. The one batch claimed
 * ahead while a request is out (see deliverBatch) is sent next or released; a crash leaves it
 * inflight in the journal, which returns it to the queue at the next start.
 */
export class Deliverer {
  private readonly sender: AttendanceSender;
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
  private wakeIdle: (() => void) | undefined;
  private wakePending = false;
  /** The next batch, claimed while the previous request was out, with the size and option it was claimed under. */
  private ahead: { batch: OutboundPunch[]; size: number; ignoreBackoff: boolean } | undefined;

  constructor(private readonly o: DelivererOptions) {
    this.ownsSender = !o.sender;
    this.pending = new PendingCount(o.queue, () => o.clock.now());
    this.queue = countingQueue(o.queue, this.pending);
    this.sender =
      o.sender ??
      new AttendanceClient({ hrms: o.hrms, authPatterns: compilePatterns(o.delivery.patterns.authFailure) });
    this.duplicatePatterns = compilePatterns(o.delivery.patterns.duplicate);
    this.backoff = new Backoff(o.delivery.retry, o.random);
    this.sizer = new BatchSizer(o.delivery.batchSize);
    this.health = new DeliveryHealth(o.state, o.logger, o.clock);
    this.sleep = o.sleep ?? abortableSleep;
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

  /** New punches were ingested: an idle `run` loop looks at the queue now. */
  wake(): void {
    if (this.wakeIdle) this.wakeIdle();
    else this.wakePending = true;
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
    const batch = this.takeAhead(opts) ?? this.claim(opts);
    if (batch.length === 0) return report;
    report.claimed = batch.length;
    this.health.attempted(clock.now());
    const deps = {
      queue,
      sender: this.sender,
      duplicatePatterns: this.duplicatePatterns,
      stats: this.stats,
      logger: this.o.logger,
    };
    const sending = sendClaimed(batch, () => this.o.tokens.get(), opts.signal, deps, report);
    // While the HRMS works on the request, claim the next batch, so the journal's claim costs no
    // wall time (still one request at a time). In setImmediate: by then the request has been
    // written (Node hands it to the socket on the next tick). Only when this batch was full,
    // i.e. more is probably waiting.
    let claimError: unknown;
    const claimingAhead =
      batch.length === this.sizer.current && !opts.signal?.aborted
        ? new Promise<void>((resolve) =>
            setImmediate(() => {
              try {
                const next = this.claim(opts);
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
    // Anything but a clean answer means a pause or a smaller batch: the batch claimed ahead goes back.
    if (sent.failure) this.releaseAhead();
    if (claimError !== undefined) throw claimError;
    const smallerHelps = sent.failure?.kind === 'too-large' && this.sizer.shrink(sent.failedSize) < sent.failedSize;
    this.conclude(report, sent.failure, sent.badReply, batch.length, smallerHelps);
    this.logDelivered(report);
    return report;
  }

  /** The daemon loop: deliver while punches are due; idle until due, polled or woken; stop on abort. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.o;
    while (!signal.aborted) {
      const wait = this.retryAt - elapsedMs(clock);
      if (wait > 0) {
        await this.sleep(wait, signal);
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
        logger.error({ err: e }, 'delivery error; retrying later');
        this.retryAt = elapsedMs(clock) + Math.max(1000, this.backoff.next());
        continue;
      }
      if (report.result === 'idle') await this.idle(signal);
    }
    this.releaseAhead();
  }

  /** Delivers what is deliverable now (for `flush`), retrying temporary failures for up to maxWaitMs. */
  async drain(opts: DrainOptions): Promise<DrainReport> {
    try {
      return await drainQueue(this, this.queue, this.o.clock, this.sleep, opts);
    } finally {
      this.releaseAhead();
    }
  }

  async close(): Promise<void> {
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
    const claimed = this.queue.claim(limit, { ignoreBackoff: opts.ignoreBackoff ?? false });
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
      this.health.answered(summary);
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
        withCause('HRMS refused the token'),
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
      report.message = failure.message;
      const retryAfter = failure.kind === 'transient' ? (failure.retryAfterMs ?? 0) : 0;
      report.waitMs = Math.max(this.backoff.next(), retryAfter);
      this.health.transient(failure.message, withCause(`temporary failure: ${failure.message}`), report.waitMs);
    }
    this.stats.batches[report.result]++;
    this.retryAt = report.waitMs > 0 ? elapsedMs(clock) + report.waitMs : 0;
  }

  /**
   * `delivered 200 punches to the HRMS (3 refused), 41 pending`: one info line per batch the HRMS
   * answered, so that a site admin can follow punches through the log. Pending: what still waits
   * after this batch (the batch claimed ahead included). Codes are never listed here.
   */
  private logDelivered(r: BatchReport): void {
    const answered = r.delivered + r.duplicates + r.rejected;
    if (answered === 0 || !this.o.logger.isLevelEnabled('info')) return;
    let pending: ReturnType<PendingCount['read']>;
    try {
      pending = this.pending.read();
    } catch {
      return; // a busy journal: the next batch's line counts again
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
      deliveredLine(answered, r, waiting, pending.exact),
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

/** `delivered 200 punches to the HRMS (3 refused, 1 already there), 41 pending`. */
export function deliveredLine(answered: number, t: OutcomeTally, pending: number, exact = true): string {
  const notes: string[] = [];
  if (t.rejected) notes.push(`${t.rejected} refused`);
  if (t.duplicates) notes.push(`${t.duplicates} already there`);
  if (t.unknown) notes.push(`${t.unknown} unanswered, back in the queue`);
  const noun = answered === 1 ? 'punch' : 'punches';
  return `delivered ${answered} ${noun} to the HRMS${notes.length ? ` (${notes.join(', ')})` : ''}, ${exact ? '' : 'about '}${pending} pending`;
}
