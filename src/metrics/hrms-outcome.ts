import type { AttendanceAnswer } from '../hrms/attendance.js';

/** `punchgate_hrms_requests_total{outcome}`: what became of one attendance request. */
export const HRMS_OUTCOMES = ['ok', 'http_error', 'network_error', 'bad_reply', 'token_refused'] as const;
export type HrmsOutcome = (typeof HRMS_OUTCOMES)[number];

/**
 * The answer kinds of the HRMS client, mapped to the metric's outcomes:
 * - ok: per-punch results came back (whatever they say about each punch);
 * - token_refused: the token was refused (HTTP 401/403 or a token message);
 * - http_error: the HRMS answered with an error: HTTP 4xx/5xx (413, 408, 429 included), or a
 *   refusal of the whole request (`status:false` without per-punch results);
 * - bad_reply: an HTTP 2xx that cannot be used: a body that is not JSON, or `status:true` without
 *   any per-punch result for a non-empty batch;
 * - network_error: no HTTP answer at all: connection refused or reset, DNS, TLS, timeout, abort.
 * `undefined` (the sender threw, which it should never do) counts as network_error.
 */
export function hrmsOutcome(answer: AttendanceAnswer | undefined, sent: number): HrmsOutcome {
  if (!answer) return 'network_error';
  switch (answer.kind) {
    case 'answered':
      return answer.results.length === 0 && sent > 0 ? 'bad_reply' : 'ok';
    case 'auth':
      return 'token_refused';
    case 'too-large':
    case 'refused':
      return 'http_error';
    case 'transient':
      if (answer.httpStatus === undefined) return 'network_error';
      return answer.httpStatus >= 200 && answer.httpStatus < 300 ? 'bad_reply' : 'http_error';
  }
}
