import type { AttendanceAnswer } from '../hrms/attendance.js';

/** `punchgate_hrms_requests_total{outcome}`: what became of one attendance request. */
export const HRMS_OUTCOMES = ['ok', 'http_error', 'network_error', 'bad_reply', 'token_refused'] as const;
export type HrmsOutcome = (typeof HRMS_OUTCOMES)[number];

/**
 * The answer kinds of the HRMS client, mapped to the metric's outcomes:
 * - ok: per-punch results came back (whatever they say about each punch);
 * - token_refused: the token was refused (HTTP 401/403 or a token message);
 * - http_error: the HRMS answered with an error: HTTP 3xx/4xx/5xx (a redirect, 404/405, 407, 413,
 *   408, 429, an error page), or a refusal of the whole request (`status:false` without per-punch
 *   results);
 * - bad_reply: an answer that confirms nothing: a 2xx that is not JSON or does not fit the batch sent
 *   (another count, unknown devicelogIds, odd status values), `status:false` with results that are
 *   not all clear refusals;
 * - network_error: no HTTP answer at all: connection refused or reset, DNS, TLS, a proxy's tunnel
 *   that failed, timeout, abort.
 * `undefined` (the sender threw, which it should never do) counts as network_error.
 */
export function hrmsOutcome(answer: AttendanceAnswer | undefined, sent: number): HrmsOutcome {
  if (!answer) return 'network_error';
  switch (answer.kind) {
    case 'answered':
      // Status false is still a clear answer when it refuses every punch in words.
      return answer.results.length === 0 && sent > 0
        ? 'bad_reply'
        : answer.overall || answer.results.every((r) => !r.status && r.message.trim() !== '')
          ? 'ok'
          : 'bad_reply';
    case 'bad-reply':
      return 'bad_reply';
    case 'auth':
      return 'token_refused';
    case 'too-large':
    case 'refused':
      return 'http_error';
    case 'transient':
    case 'request-failed':
      return answer.httpStatus === undefined ? 'network_error' : 'http_error';
  }
}
