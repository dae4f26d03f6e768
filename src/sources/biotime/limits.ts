/**
 * The bounds of every conversation with a ZKBioTime server. A server that answers `next` for
 * ever, sends a page of 50 MB or trickles its answer byte by byte must not keep a poll running,
 * grow the memory with its answer or blind the source: each request has a deadline and a size
 * bound, and each poll a page budget and a deadline (what was read is journalled with the cursor,
 * the next poll goes on from there).
 */

/** One answer: a page of 1,000 transactions with every field is about 400 kB. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** One poll reads for at most this long and this many pages. */
export const POLL_DEADLINE_MS = 10 * 60_000;
export const MAX_POLL_PAGES = 2_000;

/** The most rows one page may ask for (pageSize is bounded by it in the config). */
export const MAX_PAGE_SIZE = 1000;

/** Milliseconds on the monotonic clock (never steps with the box's wall clock). */
export const monotonicNow = (): number => performance.now();
