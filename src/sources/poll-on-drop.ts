/**
 * What a polled terminal's source does when its device link (a ZK real-time connection, a
 * Hikvision alert stream, a Dahua event stream) drops after it was up: it polls at once, not at
 * its next scheduled poll. A link that goes silent before it drops (a NAT or a firewall that
 * forgot the connection, a device that stopped sending) loses the punches made meanwhile; they
 * waited for the next tick (a minute, or the reconnect's backfill up to a minute later, or never
 * while the link cannot open again). And a terminal that is gone (a cable pulled, the power off)
 * is shown offline at once, as the log already says the link dropped. One still there is read:
 * nothing missed either way.
 *
 * The link calls it once per run of trouble (the first drop after a healthy link, of a link that
 * had opened), so a link that keeps dropping polls no more than before. A terminal whose polls
 * fail is not polled for it: its backoff stands (the link's contact says when it is back).
 */
export interface PolledAgain {
  /** Consecutive polls that failed (0 after a good one). */
  readonly failures: number;
  /** Polls now, or once more right after the running poll. */
  pollAgain(): void;
}

/** The hook a source gives its link: poll at once when the link drops, if polls work. */
export function pollOnDrop(loop: PolledAgain): () => void {
  return () => {
    if (loop.failures === 0) loop.pollAgain();
  };
}
