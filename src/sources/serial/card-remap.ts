import type { Logger } from '../../util/logger.js';
import type { UnknownCardRemap } from '../types.js';
import type { CodeMap } from './code-map.js';

/**
 * The punches of a reader's unknown cards (`card:<number>`) that wait for delivery go out under the
 * code map in force when they are delivered: when a map is loaded (the reader's start, a reload of
 * the config, the file changed) that holds their card, they are given its code. A punch already
 * delivered is never touched (the HRMS holds it), nor one in flight (its answer decides); a punch
 * journalled under a code keeps it: a card given to another person later does not move the punches
 * read before. `punchgate punches retry` does the same for the rejected ones and sends them now.
 */
export class WaitingCardRemap {
  /** A map not yet applied (the journal was busy): tried again at the next check. */
  private due: CodeMap | undefined;

  constructor(
    private readonly cards: UnknownCardRemap | undefined,
    private readonly terminal: string,
    private readonly log: Logger,
  ) {}

  /** A map was loaded: the waiting punches of the cards it holds take their codes (now, or at the next `retry`). */
  loaded(map: CodeMap): void {
    this.due = map;
    this.retry();
  }

  /** Applies a map a busy journal kept from being applied; nothing when none waits. */
  retry(): void {
    const map = this.due;
    if (!map || !this.cards) return;
    let r: { remapped: number; kept: number };
    try {
      r = this.cards.remapUnknownCards(this.terminal, (card) => map.lookup(card));
    } catch (e) {
      this.log.warn(
        { err: e instanceof Error ? e.message : String(e) },
        `terminal ${this.terminal}: the punches waiting under card:<number> could not be given the codes of the code map now; tried again in a few seconds`,
      );
      return;
    }
    this.due = undefined;
    if (r.remapped + r.kept === 0) return;
    this.log.info(
      { remapped: r.remapped, kept: r.kept },
      `terminal ${this.terminal}: ${r.remapped === 1 ? '1 waiting punch of an unknown card now has the code' : `${r.remapped} waiting punches of unknown cards now have the codes`} its code map gives, and ${r.remapped === 1 ? 'goes' : 'go'} out under ${r.remapped === 1 ? 'it' : 'them'}${r.kept ? `; ${r.kept} left as they are (the same punch is journalled under the mapped code)` : ''}`,
    );
  }
}
