import type { AttendanceAnswer } from '../hrms/attendance.js';
import type { SinkPunch, SinkSender } from '../sinks/types.js';
import type { DeliveryQueue, OutboundPunch, PunchOutcome } from '../journal/types.js';
import type { Logger } from '../util/logger.js';
import { firstFew } from '../util/first-few.js';
import { isFatalJournalError } from '../journal/errors.js';
import { SplitQueue } from './batch-split.js';
import type { DeliveryCounters } from './counters.js';
import { classifyOutcomes, tally, type OutcomeTally } from './outcomes.js';
import { deliveryTo } from './health.js';

/** Why a batch stopped before every punch got an answer (`no-token`: none could be read, nothing sent). */
export type Failure =
  Exclude<AttendanceAnswer, { kind: 'answered' }> | { kind: 'aborted' } | { kind: 'no-token'; message: string };

export interface SendTally extends OutcomeTally {
  requests: number;
  released: number;
  rejectedIds: number[];
}

export interface SendDeps {
  queue: DeliveryQueue;
  sender: SinkSender;
  duplicatePatterns: readonly RegExp[];
  stats: DeliveryCounters;
  logger: Logger;
  /** A claimed punch as the sink takes it. */
  toSink: (p: OutboundPunch) => SinkPunch;
  /** Who answers, in the log's words ("HRMS", "Frappe", "Odoo": credentialWords). */
  who?: string;
  /** How each refusal line begins ("HRMS delivery to https://hr.example.com": deliveryTo); default deliveryTo(who). */
  delivery?: string;
  /** The command that lists this sink's refused punches (a line names only a few); default the default sink's. */
  listRefused?: string;
  /**
   * Asked when the whole batch is answered cleanly: true hands the outcomes back unwritten
   * (SendResult.held), for the caller to settle in one transaction with the next claim.
   */
  holdSettle?: () => boolean;
}

export interface SendResult {
  failure?: Failure;
  /** Size of the request that failed (to size the next batch after a 413). */
  failedSize: number;
  /** An answer left punches unknown (overall Status false): back off, though what it settled stays settled. */
  badReply?: string;
  /**
   * The outcomes of a clean answer to the whole batch, counted but not yet written (holdSettle):
   * the caller settles them. Until then the punches stay inflight under this process's claim.
   */
  held?: PunchOutcome[];
}

/**
 * Sends one claimed batch, one request at a time, and settles what the HRMS answered. When
 * it returns, every punch of `batch` is settled or released, whatever happened (even a
 * journal error).
 *
 * Only the HRMS's own JSON refusal of the whole request (`status: false`, not about the token,
 * the path or the size) splits the batch: in halves, recursively, until the punch that causes it
 * stands alone. That punch is rejected only when the refusal is shown to be about it: another
 * part of the batch went through, or it was refused before, or the HRMS takes an empty batch
 * (one probe request) while refusing that punch alone. An HRMS that refuses every request
 * (maintenance, a misconfiguration) thus charges no punch. Everything else (redirects, pages
 * that are not JSON, 404, a proxy's 407, network errors, answers that do not fit the batch) is
 * a failure of the request: the batch goes back to the queue uncharged.
 */
export async function sendClaimed(
  batch: readonly OutboundPunch[],
  getToken: () => string,
  signal: AbortSignal | undefined,
  deps: SendDeps,
  t: SendTally,
): Promise<SendResult> {
  const { queue, stats } = deps;
  const open = new Map(batch.map((p) => [p.id, p]));
  /** Each punch's devicelogId, for the log: the id its listing (`punchgate punches`) shows. */
  const idOf = new Map(batch.map((p) => [p.id, p.devicelogId]));
  const release = (punches: readonly OutboundPunch[]) => {
    if (punches.length === 0) return;
    queue.release(punches.map((p) => p.id));
    for (const p of punches) open.delete(p.id);
    t.released += punches.length;
    stats.released += punches.length;
  };
  const settle = (outcomes: PunchOutcome[]) => {
    queue.settle(outcomes);
    for (const o of outcomes) open.delete(o.id);
    count(outcomes, t, deps, idOf);
  };

  /** The batch ended by an exception (a journal error settling): that one is what the caller sees. */
  let threw = false;
  try {
    let token: string;
    try {
      token = getToken();
    } catch (e) {
      return { failure: { kind: 'no-token', message: e instanceof Error ? e.message : String(e) }, failedSize: 0 };
    }
    const send = (part: readonly OutboundPunch[]) => sendOne(part, token, signal, deps, t);
    const work = new SplitQueue(batch);
    /** Evidence that the HRMS takes requests: some part answered, or the empty probe. */
    let hrmsTakesRequests = false;
    /** A part of this batch the HRMS answered (not the empty probe). */
    let partWentThrough = false;
    /** Punches refused alone without a word, before any part went through: judged at the end. */
    const unexplained: { punch: OutboundPunch; message: string; httpStatus: number }[] = [];
    let badReply: string | undefined;
    for (let part = work.next(); part; part = work.next()) {
      if (signal?.aborted) return { failure: { kind: 'aborted' }, failedSize: 0 };
      const answer = await send(part);
      if (answer.kind === 'answered') {
        const outcomes = classifyOutcomes(part, answer.results, deps.duplicatePatterns, answer.overall);
        // The usual answer (the whole batch, every punch answered): written by the caller with
        // its next claim, in one transaction, while the next request is out.
        if (
          part.length === batch.length &&
          answer.overall &&
          outcomes.every((o) => o.kind !== 'unknown') &&
          deps.holdSettle?.()
        ) {
          for (const o of outcomes) open.delete(o.id);
          count(outcomes, t, deps, idOf);
          return { failedSize: 0, held: outcomes };
        }
        settle(outcomes);
        hrmsTakesRequests = true;
        partWentThrough = true;
        if (!answer.overall && outcomes.some((o) => o.kind === 'unknown'))
          badReply =
            'the HRMS said the request failed as a whole (Status false) but listed results: only its clear refusals were taken';
        continue;
      }
      if (signal?.aborted) return { failure: { kind: 'aborted' }, failedSize: part.length };
      if (answer.kind !== 'refused') return { failure: answer, failedSize: part.length };
      const [only] = part;
      if (part.length > 1 || !only) {
        stats.splits++;
        const { who, delivery } = wordsOf(deps);
        deps.logger.info(
          { punches: part.length, httpStatus: answer.httpStatus },
          `${delivery}: ${who} refused the whole batch (${answer.message}); splitting it to find the punch that causes it`,
        );
        work.split(part);
        continue;
      }
      // Refused without a word of why: the HRMS taking an empty batch proves nothing about this
      // punch (an HRMS whose empty answer works while every real request fails would have every
      // punch charged: found by an adversarial trial). Only a part of this batch that went
      // through shows the refusal is about it; else the batch goes back uncharged.
      if (answer.wordless && !partWentThrough) {
        // The rest of the batch first: if some of it goes through, this refusal was about this punch.
        if (work.splitting) {
          unexplained.push({ punch: only, message: answer.message, httpStatus: answer.httpStatus });
          continue;
        }
        return {
          failure: {
            kind: 'request-failed',
            httpStatus: answer.httpStatus,
            message: `the HRMS refused every request with punches without saying why (HTTP ${answer.httpStatus}, status false, no message): ask the HRMS administrator to look at its log`,
          },
          failedSize: 1,
        };
      }
      if (!hrmsTakesRequests && only.attempts === 0 && only.previousState === 'pending') {
        const probe = await send([]);
        if (probe.kind === 'refused')
          return {
            failure: { ...probe, message: `the HRMS refuses every request, even an empty one: ${probe.message}` },
            failedSize: 1,
          };
        if (probe.kind !== 'answered') return { failure: probe, failedSize: 1 };
        hrmsTakesRequests = true;
      }
      settle([
        { id: only.id, kind: 'rejected', message: `${answer.message} (HTTP ${answer.httpStatus}, request refused)` },
      ]);
    }
    // Refused without a word while another part went through: about them after all. (Had none
    // gone through, the loop returned the failure above and they go back uncharged.)
    if (unexplained.length > 0)
      settle(
        unexplained.map((u) => ({
          id: u.punch.id,
          kind: 'rejected' as const,
          message: `${u.message} (HTTP ${u.httpStatus}, request refused)`,
        })),
      );
    return { failedSize: 0, ...(badReply ? { badReply } : {}) };
  } catch (e) {
    threw = true;
    throw e;
  } finally {
    // Whatever happened, no claimed punch stays inflight: the unanswered go back to the queue.
    if (open.size > 0) {
      try {
        release([...open.values()]);
      } catch (e) {
        // A journal that cannot be written (damaged, the disk full) ends the daemon with one
        // line that says so and the fix: this is only its echo (an error line with SQLite's stack
        // came before that line), kept at debug. Met here first (the request failed, nothing
        // else wrote), it is thrown, so that the daemon says it now rather than at the next write.
        if (!isFatalJournalError(e))
          deps.logger.error(
            { err: e },
            'could not return claimed punches to the queue (they are recovered at the next start)',
          );
        else {
          deps.logger.debug({ err: e }, 'could not return claimed punches to the queue: the journal cannot be written');
          // eslint-disable-next-line no-unsafe-finally -- the journal's fatal error, when nothing else is thrown
          if (!threw) throw e;
        }
      }
    }
  }
}

/** One request, counted (requests, punches on the wire, outcome, duration). */
async function sendOne(
  part: readonly OutboundPunch[],
  token: string,
  signal: AbortSignal | undefined,
  { sender, stats, toSink }: SendDeps,
  t: SendTally,
): Promise<AttendanceAnswer> {
  t.requests++;
  stats.requests++;
  stats.punchesSent += part.length;
  return sender.send(part.map(toSink), { token, ...(signal ? { signal } : {}) });
}

/** The words of the refusal lines: who refused, and the start naming the sink and its address (deliveryTo). */
function wordsOf(deps: SendDeps): { who: string; delivery: string; listRefused: string } {
  const who = deps.who ?? 'HRMS';
  return {
    who,
    delivery: deps.delivery ?? deliveryTo(who, undefined),
    listRefused: deps.listRefused ?? 'punchgate punches --state rejected',
  };
}

function count(
  outcomes: readonly PunchOutcome[],
  t: SendTally,
  deps: SendDeps,
  idOf: ReadonlyMap<number, string>,
): void {
  const { stats, logger } = deps;
  const n = tally(outcomes);
  t.delivered += n.delivered;
  t.duplicates += n.duplicates;
  t.rejected += n.rejected;
  t.unknown += n.unknown;
  stats.delivered += n.delivered;
  stats.duplicates += n.duplicates;
  stats.rejected += n.rejected;
  stats.unknown += n.unknown;
  const refused = outcomes.filter((o) => o.kind === 'rejected');
  for (const o of refused) t.rejectedIds.push(o.id);
  logRefused(refused, logger, wordsOf(deps), idOf);
}

/**
 * Ids a refusal line names at most: 100 made a line no admin could read (a trial of a Frappe sink
 * refusing 200 punches of unknown employees); the rest are listed by the command the line names.
 */
const REFUSED_IDS_SHOWN = 5;
/** Distinct answers a refusal line's fields keep at most. */
const REFUSED_ANSWERS_KEPT = 10;

/**
 * The refusals of one answer in one warning: a line per punch made 200 lines at once for a batch
 * of unknown employees, again at each of its ~30 retries (found by a long-life trial), enough for
 * journald's rate limit to drop other lines. One refusal keeps its own sentence; more are named
 * by their ids (searchable as before), the HRMS's answers in the line's fields.
 */
function logRefused(
  refused: readonly PunchOutcome[],
  logger: Logger,
  { who, delivery, listRefused }: { who: string; delivery: string; listRefused: string },
  idOf: ReadonlyMap<number, string>,
): void {
  const only = refused.length === 1 ? refused[0] : undefined;
  if (only) {
    const devicelogId = idOf.get(only.id);
    logger.warn(
      { devicelogId, message: only.message },
      `${delivery}: ${who} refused punch ${devicelogId}; it is retried on the slow schedule`,
    );
    return;
  }
  if (refused.length === 0) return;
  const ids = refused.map((o) => idOf.get(o.id) ?? String(o.id));
  const messages = [...new Set(refused.map((o) => o.message ?? ''))].slice(0, REFUSED_ANSWERS_KEPT);
  logger.warn(
    { refused: ids.length, devicelogIds: ids.slice(0, REFUSED_IDS_SHOWN), messages },
    `${delivery}: ${who} refused ${ids.length} punches; they are retried on the slow schedule: ${firstFew(
      ids,
      REFUSED_IDS_SHOWN,
      `${listRefused} lists them all`,
    )}`,
  );
}
