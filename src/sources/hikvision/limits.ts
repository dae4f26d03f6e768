/**
 * The bounds of every conversation with a Hikvision device. A device that answers `MORE` for
 * ever, sends a page of 15 MB or an alert-stream part that never ends must not keep a poll
 * running, grow the memory with its answer or blind the source: each exchange has a deadline and
 * a size bound, and a device that reaches one is named in an alert (see notes.ts).
 *
 * Durations are measured on the monotonic clock (performance.now, timers): a box clock step
 * neither ends a poll early nor makes it last an hour.
 */

/** One answer (a page of events or users, the device's identity...): a page of 30 events is about 20 kB. */
export const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

/**
 * One poll reads events for at most this long, and at most this many pages: what it read is
 * journalled with the cursor, and the next poll goes on from there. A device's whole log (up to
 * 300,000 events on the largest models) takes several polls on a slow terminal, none on a fast one.
 */
export const POLL_DEADLINE_MS = 10 * 60_000;
export const MAX_POLL_PAGES = 10_000;

/** A user search (`terminals users`, user sync) ends within this long, and with at most this many users. */
export const USER_SEARCH_DEADLINE_MS = 5 * 60_000;
export const MAX_USERS = 100_000;

/**
 * The alert stream: a part (an event, a heartbeat, a picture of a face) of more than this is not
 * a device's event, and neither is a part head longer than MAX_PART_HEAD_BYTES.
 */
export const MAX_PART_BYTES = 4 * 1024 * 1024;
export const MAX_PART_HEAD_BYTES = 16 * 1024;
/**
 * The alert stream counts as healthy (its reconnect backoff starts again from 1 s) only once it
 * has stayed open this long without breaking a bound: the rule of every device link.
 */
export { STREAM_HEALTHY_MS } from '../link-health.js';

/** Milliseconds on the monotonic clock (never steps with the box's wall clock). */
export const monotonicNow = (): number => performance.now();
