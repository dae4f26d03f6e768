import type { AttendanceAnswer, AttendancePunch, AttendanceSender } from '../hrms/attendance.js';
import type { DeliveryQueue, OutboundPunch, PunchOutcome } from '../journal/types.js';
import type { Logger } from '../util/logger.js';
import { SplitQueue } from './batch-split.js';
import type { DeliveryCounters } from './counters.js';
import { classifyOutcomes, tally, type OutcomeTally } from './outcomes.js';

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
  sender: AttendanceSender;
  duplicatePatterns: readonly RegExp[];
  stats: DeliveryCounters;
  logger: Logger;
}

export interface SendResult {
  failure?: Failure;
  /** Size of the request that failed (to size the next batch after a 413). */
  failedSize: number;
}

/** The seed's answer to a wrong path: "... provide a valid group, plugin name and API function ...". */
const ENDPOINT_PROBLEM = /valid group|plugin name|api function/i;

/** 404/405 or the seed's invalid-path answer: the endpoint is wrong, not a punch; splitting cannot help. */
export function isEndpointProblem(a: { httpStatus: number; message: string }): boolean {
  return a.httpStatus === 404 || a.httpStatus === 405 || ENDPOINT_PROBLEM.test(a.message);
}

/**
 * Sends one claimed batch, one request at a time: settles what the HRMS answered, splits a
 * batch refused as a whole until the punch that causes it stands alone (then rejects it),
 * and on any other failure returns the unsent rest to the queue. When it returns, every
 * punch of `batch` is settled or released, whatever happened (even a journal error).
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
    count(outcomes, t, deps);
  };

  try {
    let token: string;
    try {
      token = getToken();
    } catch (e) {
      return { failure: { kind: 'no-token', message: e instanceof Error ? e.message : String(e) }, failedSize: 0 };
    }
    const work = new SplitQueue(batch);
    for (let part = work.next(); part; part = work.next()) {
      if (signal?.aborted) return { failure: { kind: 'aborted' }, failedSize: 0 };
      t.requests++;
      stats.requests++;
      stats.punchesSent += part.length;
      const answer = await deps.sender.send(part.map(toWire), { token, ...(signal ? { signal } : {}) });
      if (answer.kind === 'answered') {
        settle(classifyOutcomes(part, answer.results, deps.duplicatePatterns));
      } else if (signal?.aborted) {
        return { failure: { kind: 'aborted' }, failedSize: part.length };
      } else if (answer.kind === 'refused' && !isEndpointProblem(answer)) {
        const [only] = part;
        if (part.length === 1 && only) {
          settle([
            {
              id: only.id,
              kind: 'rejected',
              message: `${answer.message} (HTTP ${answer.httpStatus}, request refused)`,
            },
          ]);
        } else {
          stats.splits++;
          deps.logger.info(
            { punches: part.length, httpStatus: answer.httpStatus },
            `HRMS refused the whole batch (${answer.message}); splitting it to find the punch that causes it`,
          );
          work.split(part);
        }
      } else {
        return { failure: answer, failedSize: part.length };
      }
    }
    return { failedSize: 0 };
  } finally {
    // Whatever happened, no claimed punch stays inflight: the unanswered go back to the queue.
    if (open.size > 0) {
      try {
        release([...open.values()]);
      } catch (e) {
        deps.logger.error(
          { err: e },
          'could not return claimed punches to the queue (they are recovered at the next start)',
        );
      }
    }
  }
}

function count(outcomes: readonly PunchOutcome[], t: SendTally, { stats, logger }: SendDeps): void {
  const n = tally(outcomes);
  t.delivered += n.delivered;
  t.duplicates += n.duplicates;
  t.rejected += n.rejected;
  t.unknown += n.unknown;
  stats.delivered += n.delivered;
  stats.duplicates += n.duplicates;
  stats.rejected += n.rejected;
  stats.unknown += n.unknown;
  for (const o of outcomes) {
    if (o.kind !== 'rejected') continue;
    t.rejectedIds.push(o.id);
    logger.warn({ punchId: o.id, message: o.message }, 'HRMS rejected a punch; it is retried on the slow schedule');
  }
}

function toWire(p: OutboundPunch): AttendancePunch {
  return { biometriccode: p.biometricCode, logDate: p.logTime, devicelogId: p.devicelogId };
}
