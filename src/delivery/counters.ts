/** Results of one deliverBatch call. */
export type BatchResult =
  'idle' | 'ok' | 'transient' | 'bad-reply' | 'auth' | 'too-large' | 'request-failed' | 'refused' | 'aborted';

/**
 * What one HTTP request to the HRMS came to (for /metrics):
 * ok: an answer about every punch sent; http_error: an HTTP status that is not an answer
 * (3xx, 4xx, 5xx, a whole-request refusal); network_error: no HTTP answer at all (refused,
 * reset, timeout, TLS, the proxy's tunnel); bad_reply: a 2xx that does not fit the batch;
 * token_refused: the token was refused.
 */
export type RequestOutcome = 'ok' | 'http_error' | 'network_error' | 'bad_reply' | 'token_refused';

/** Upper bounds (seconds) of the request duration histogram, as Prometheus buckets. */
export const REQUEST_SECONDS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

/** Running totals since start, for metrics and `status`. */
export interface DeliveryCounters {
  /** HTTP requests made (a split batch makes several). */
  requests: number;
  /** Punches put on the wire (a punch resent after an unknown outcome counts again). */
  punchesSent: number;
  delivered: number;
  duplicates: number;
  rejected: number;
  /** Punches whose outcome stayed unknown in an answer and went back to the queue. */
  unknown: number;
  /** Punches returned to the queue without an answer (failure, auth, 413, abort). */
  released: number;
  /** Whole-request refusals that split a batch. */
  splits: number;
  batches: Record<Exclude<BatchResult, 'idle'>, number>;
  /** HTTP requests by what they came to (an aborted request is not counted). */
  requestOutcomes: Record<RequestOutcome, number>;
  /**
   * Request durations: `counts[i]` requests took at most `le[i]` seconds (cumulative, the last
   * bucket is +Inf, so it equals `count`), `sum` seconds in all.
   */
  requestSeconds: { le: readonly number[]; counts: number[]; sum: number; count: number };
}

export function emptyCounters(): DeliveryCounters {
  return {
    requests: 0,
    punchesSent: 0,
    delivered: 0,
    duplicates: 0,
    rejected: 0,
    unknown: 0,
    released: 0,
    splits: 0,
    batches: {
      ok: 0,
      transient: 0,
      'bad-reply': 0,
      auth: 0,
      'too-large': 0,
      'request-failed': 0,
      refused: 0,
      aborted: 0,
    },
    requestOutcomes: { ok: 0, http_error: 0, network_error: 0, bad_reply: 0, token_refused: 0 },
    requestSeconds: {
      le: [...REQUEST_SECONDS_BUCKETS, Infinity],
      counts: new Array<number>(REQUEST_SECONDS_BUCKETS.length + 1).fill(0),
      sum: 0,
      count: 0,
    },
  };
}

/** Counts one finished request. */
export function countRequest(c: DeliveryCounters, outcome: RequestOutcome, seconds: number): void {
  c.requestOutcomes[outcome]++;
  const h = c.requestSeconds;
  h.count++;
  h.sum += seconds;
  h.le.forEach((bound, i) => {
    if (seconds <= bound) h.counts[i]!++;
  });
}
