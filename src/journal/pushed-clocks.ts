/**
 * What the journal knows of the clocks of terminals it cannot read (push terminals): the offsets
 * of their punches (punch time minus the box's time when it received them) that were past the
 * box's clock. A terminal whose clock runs ahead (a zone never set, DST not applied: a production
 * MB460 pushed +7196 s for four months) shows the same offset punch after punch; once
 * STEADY_PUNCHES of its recent ones agree within STEADY_MARGIN_SECONDS, that offset is its clock's,
 * and its punches are judged against it (delivered as recorded, with a clock alert). A single
 * implausible punch (a year off) never agrees with the others and stays quarantined.
 *
 * Kept in memory; a steady offset is also written to the terminal's `skewSeconds` (the status's
 * clock alert), and read back from there after a restart.
 */

/** Offsets this far apart (or less) are one clock: pushes come seconds to minutes after the punch. */
export const STEADY_MARGIN_SECONDS = 300;
/** Punches that must agree before an offset is the terminal's clock. */
export const STEADY_PUNCHES = 3;
/** The furthest ahead an offset may be its clock's: zones lie within 26 h of each other, plus DST. */
const MAX_OFFSET_SECONDS = 27 * 3600;
/** Offsets kept per terminal. */
const RECENT = 8;

export class PushedClocks {
  private readonly recent = new Map<string, number[]>();
  private readonly steady = new Map<string, number | null>();

  /** `known(terminal)`: the offset recorded before (the ledger's skewSeconds), or null. */
  constructor(private readonly known: (terminal: string) => number | null) {}

  /** The terminal's steady offset (seconds ahead of the box), or undefined. */
  offset(terminal: string): number | undefined {
    if (!this.steady.has(terminal)) {
      const k = this.known(terminal);
      this.steady.set(terminal, k !== null && k > 0 ? k : null);
    }
    return this.steady.get(terminal) ?? undefined;
  }

  /**
   * A pushed punch was past the box's clock by `offsetSeconds`. Returns the terminal's offset when
   * this punch made it steady (newly, or larger than it was), else undefined.
   */
  note(terminal: string, offsetSeconds: number): number | undefined {
    // Further off than any zone (a clock set to the wrong year): never its clock, however steady.
    if (offsetSeconds > MAX_OFFSET_SECONDS) return undefined;
    const list = [...(this.recent.get(terminal) ?? []), offsetSeconds].slice(-RECENT);
    this.recent.set(terminal, list);
    const agreeing = list.filter((o) => Math.abs(o - offsetSeconds) <= STEADY_MARGIN_SECONDS);
    if (agreeing.length < STEADY_PUNCHES) return undefined;
    const offset = Math.round(Math.max(...agreeing));
    const was = this.offset(terminal);
    if (was !== undefined && was >= offset) return undefined;
    this.steady.set(terminal, offset);
    return offset;
  }

  /** A pushed punch dated about now: the terminal's clock is right (again). True when it had an offset. */
  settle(terminal: string): boolean {
    this.recent.delete(terminal);
    const had = this.offset(terminal) !== undefined;
    this.steady.set(terminal, null);
    return had;
  }
}
