/** Results of one deliverBatch call. */
export type BatchResult =
  'idle' | 'ok' | 'transient' | 'bad-reply' | 'auth' | 'too-large' | 'request-failed' | 'refused' | 'aborted';

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
  };
}
