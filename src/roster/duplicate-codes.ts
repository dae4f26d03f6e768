/**
 * A roster that gives one code on two rows (an HRMS listing a person twice with two cards, a
 * page served again in place of the next one, a CSV row pasted twice). Which row is right is not
 * known, so neither is used: the person is left alone on every terminal, as for any bad row.
 * Found by a trial: the first row won, and its card was written over the one the terminal had.
 * Such a list also cannot say who is missing from it (the repeated page stands where other people
 * should be), so its problems mark it in doubt: nobody is removed as absent in that run.
 */
import type { RosterEntry, RosterProblem } from './types.js';

const NEITHER = 'which of the two is right is not known; neither is used and the user is left alone';

export class CodeRegister {
  private readonly first = new Map<string, string>();
  private readonly doubled = new Map<string, string>();

  /** The problem of a row whose code an earlier row gave, or null for the code's first row. */
  check(code: string, where: string, phrase: (earlier: string) => string): RosterProblem | null {
    const earlier = this.first.get(code);
    if (earlier === undefined) {
      this.first.set(code, where);
      return null;
    }
    if (!this.doubled.has(code)) this.doubled.set(code, where);
    return { where, code, message: `${phrase(earlier)}: ${NEITHER}`, listInDoubt: true };
  }

  /**
   * The entries without those of a code given twice, each such first row added to `problems`
   * (naming the row that repeats it).
   */
  settle(
    entries: RosterEntry[],
    problems: RosterProblem[],
    phrase: (code: string, later: string) => string,
  ): RosterEntry[] {
    if (this.doubled.size === 0) return entries;
    for (const e of entries) {
      const later = this.doubled.get(e.code);
      if (later !== undefined)
        problems.push({
          where: e.where,
          code: e.code,
          message: `${phrase(e.code, later)}: ${NEITHER}`,
          listInDoubt: true,
        });
    }
    return entries.filter((e) => !this.doubled.has(e.code));
  }
}
