/**
 * A card left on the reader is one read, not one per frame. RDM6300/RDM630-type 125 kHz modules
 * send their frame again and again while a tag stays in the field, about every 65 ms (arduino12's
 * rdm6300 library, which de-bounces them with a 300 ms tag timeout; other projects' notes say the
 * same: "the module continuously outputs tag data when a card is present"). Every frame a punch,
 * a card held for two seconds became two or three punches at the HRMS (the journal only folds
 * the ones of one second).
 *
 * So a card read again while its last frame is less than `windowMs` old is the same presentation:
 * counted as a repeat, never a punch. The window slides with each frame, so a card held for a
 * minute is one punch; once the card has been away for `windowMs`, showing it again is a new read.
 * Another card in between ends the presentation at once. `windowMs` 0 turns this off.
 */
export class CardRepeats {
  private last: { card: string; at: number } | null = null;

  constructor(private readonly windowMs: number) {}

  /** A card read at monotonic time `at` (ms): true when it repeats the card still on the reader. */
  isRepeat(card: string, at: number): boolean {
    const last = this.last;
    const repeat = this.windowMs > 0 && last !== null && last.card === card && at - last.at < this.windowMs;
    this.last = { card, at };
    return repeat;
  }

  /** The device went away: whatever comes next is a new read. */
  reset(): void {
    this.last = null;
  }
}
