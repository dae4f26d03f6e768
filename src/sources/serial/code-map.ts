import { readFileSync, statSync } from 'node:fs';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { codeProblem } from '../../punch.js';
import { readCsv } from '../../util/csv.js';
import { escapeControls } from '../../util/terminal-text.js';
import { cardCode } from './card-code.js';

/**
 * Card number -> biometric code, for readers that print card numbers.
 *
 * File format (CSV, UTF-8): a header line `card,biometriccode`, then one `card,code` per line.
 * Blank lines and lines starting with `#` are ignored; fields may be wrapped in double quotes.
 * Codes follow the one rule of src/punch.ts (codeProblem): a bad one is reported with its line.
 * Card numbers match without regard to leading zeros or letter case, because readers
 * differ in how they print the same card (`0004521234` and `4521234` are one card).
 */

export interface CodeMap {
  readonly size: number;
  /** The biometric code for a card as read, or undefined when the card is not mapped. */
  lookup(card: string): string | undefined;
}

export interface ParsedCodeMap {
  map: CodeMap;
  /** `file:line: message` problems; the map holds the good lines. */
  problems: string[];
}

/**
 * How a card that is not in the map is journalled: the biometric code is this prefix plus the
 * card number as read (see src/punch.ts). The card number stays readable in the rejected list
 * so that an operator can add it to the map.
 */
export { UNKNOWN_CARD_PREFIX } from '../../punch.js';

export function normaliseCard(card: string): string {
  return card
    .trim()
    .toUpperCase()
    .replace(/^0+(?=.)/, '');
}

/** Blanks around a cell of a hand-edited file; nothing else is taken off (see codeProblem). */
const unblank = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, '');

export function parseCodeMap(text: string, file: string): ParsedCodeMap {
  const problems: string[] = [];
  const entries = new Map<string, string>();
  let sawHeader = false;
  for (const rec of readCsv(text, { comments: true })) {
    const where = `${file}:${rec.line}`;
    const fields = rec.cells.map(unblank);
    if (!sawHeader) {
      sawHeader = true;
      if (fields.length !== 2 || fields[0]?.toLowerCase() !== 'card' || fields[1]?.toLowerCase() !== 'biometriccode') {
        problems.push(`${where}: the first line must be the header "card,biometriccode"`);
      }
      continue;
    }
    if (rec.error) {
      problems.push(`${where}: ${rec.error}`);
      continue;
    }
    const [card = '', code = ''] = fields;
    const comma = fields.length === 3 ? `${card},${code}` : '';
    if (comma !== '' && comma !== cardCode(comma) && cardCode(comma) !== null && fields[2] !== '') {
      // The tag's facility,card written as it is printed: the comma cut the card in two cells.
      problems.push(
        `${where}: the card ${comma} needs double quotes, its comma ends a CSV cell: write "${comma}",${escapeControls(fields[2]!.slice(0, 40))}`,
      );
      continue;
    }
    if (fields.length !== 2 || card === '' || code === '') {
      problems.push(`${where}: expected "card,biometriccode", got "${escapeControls(fields.join(',').slice(0, 60))}"`);
      continue;
    }
    const bad = codeProblem(code);
    if (bad) {
      problems.push(`${where}: ${bad}`);
      continue;
    }
    // A card written as its reader prints it in a comma format ("111,27706") is the card it journals.
    const key = normaliseCard(cardCode(card) ?? card);
    const previous = entries.get(key);
    if (previous !== undefined && previous !== code) {
      problems.push(`${where}: card ${escapeControls(card)} is already mapped to ${previous}`);
      continue;
    }
    entries.set(key, code);
  }
  if (!sawHeader) problems.push(`${file}: empty file: expected the header "card,biometriccode"`);
  return {
    problems,
    map: { size: entries.size, lookup: (card) => entries.get(normaliseCard(card)) },
  };
}

/** Reads and parses a code map; a file that cannot be read is one problem. */
export function readCodeMap(file: string): ParsedCodeMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    return { map: { size: 0, lookup: () => undefined }, problems: [`${file}: cannot read the code map (${code})`] };
  }
  return parseCodeMap(text, file);
}

/**
 * The code map of a running source. The file is checked for changes at most every
 * `checkEveryMs`, so cards added while the gateway runs take effect without a restart;
 * a file that turns bad keeps the last good map (and says so in the log).
 */
export class ReloadingCodeMap {
  private map: CodeMap;
  private stamp: string;
  private checkedAt: number;

  constructor(
    private readonly file: string,
    /** `onReload`: called with each map loaded after the first (the file changed and is good). */
    private readonly deps: { clock: Clock; logger: Logger; onReload?: (map: CodeMap) => void },
    private readonly checkEveryMs = 10_000,
  ) {
    const first = readCodeMap(file);
    if (first.problems.length > 0) throw new Error(first.problems.join('\n'));
    this.map = first.map;
    this.stamp = this.fileStamp();
    this.checkedAt = deps.clock.now();
  }

  get size(): number {
    return this.map.size;
  }

  lookup(card: string): string | undefined {
    this.maybeReload();
    return this.map.lookup(card);
  }

  /** The map in force now, without looking at the file. */
  get current(): CodeMap {
    return this.map;
  }

  /**
   * Looks at the file (at most every `checkEveryMs`) without a card read: a card added while the
   * reader is quiet is mapped then, and the punches waiting under its card:<number> with it.
   */
  check(): void {
    this.maybeReload();
  }

  private fileStamp(): string {
    try {
      const s = statSync(this.file);
      return `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      return 'missing';
    }
  }

  private maybeReload(): void {
    const now = this.deps.clock.now();
    if (now - this.checkedAt < this.checkEveryMs) return;
    this.checkedAt = now;
    const stamp = this.fileStamp();
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const next = readCodeMap(this.file);
    if (next.problems.length > 0) {
      this.deps.logger.error(
        { codeMap: this.file, problems: next.problems.slice(0, 5) },
        'code map has problems; keeping the previous one',
      );
      return;
    }
    this.map = next.map;
    this.deps.logger.info({ codeMap: this.file, cards: next.map.size }, 'code map reloaded');
    this.deps.onReload?.(next.map);
  }
}
