/**
 * The bounds of every conversation with a Dahua device: each answer has a deadline and a size
 * bound, each poll a deadline and a page bound, each event-stream part a size bound. A device that
 * answers for ever, sends 15 MB or a part that never ends cannot grow the memory or keep a poll
 * running; what was read before is journalled, and the status names the device.
 */

/** One answer: a page of 500 records is about 200 kB of key=value lines. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** A whole answer (not only its silences) within this many per-request timeouts. */
export const ANSWER_DEADLINE_TIMEOUTS = 3;
/** One poll reads records for at most this long and this many pages; the next poll goes on. */
export const POLL_DEADLINE_MS = 10 * 60_000;
export const MAX_POLL_PAGES = 2_000;
/** Records journalled per commit at least (each commit is a disk sync). */
export const COMMIT_ROWS = 5_000;
/** An event-stream part (an event or a heartbeat) larger than this is no device's event. */
export const MAX_PART_BYTES = 256 * 1024;
/** The heartbeat the stream is asked for, and the silence after which it counts as dead. */
export const HEARTBEAT_SECONDS = 5;
export const STREAM_IDLE_MS = 30_000;
/** A record dated more than this after the device's clock never moves the cursor. */
export const FUTURE_SECONDS = 24 * 3600;
/** A user list read ends with at most this many users. */
export const MAX_USERS = 100_000;

export const monotonicNow = (): number => performance.now();
