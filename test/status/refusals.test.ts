import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { escapeControls } from '../../src/util/terminal-text.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * The status groups the punches the HRMS refused by cause (from its per-punch messages, as
 * the journal keeps them), names the codes and counts every punch: a real journal, settled
 * as delivery settles it.
 */
describe('refusal alerts', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: ReturnType<typeof fakeClock>;
  let journal: Journal;
  let minute = 0;
  const config = () =>
    parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }],
      },
      tmp.dir,
    );

  beforeEach(() => {
    tmp = tempDir();
    clock = fakeClock(Date.UTC(2026, 10, 22, 12, 0, 0));
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner', deadAfterAttempts: 2 });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  /**
   * `n` punches of `code`, sent and refused with the HRMS's `message` (`times` refusals each).
   * `old`: written as a journal from before the text rule's door kept them (ingest refuses such codes now).
   */
  function refuse(code: string, n: number, message: (code: string) => string, times = 1, old = false): void {
    const punches = Array.from({ length: n }, () => {
      minute++;
      const t = `2026-11-22 ${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00`;
      return { terminal: 'gate-1', biometricCode: code, logTime: t };
    });
    if (old) {
      const insert = journal.db.prepare(
        `INSERT INTO punches (terminal, device, biometric_code, log_time, site, state, created_at, updated_at)
         VALUES (?, '', ?, ?, 'plant-a', 'pending', ?, ?)`,
      );
      for (const p of punches) insert.run(p.terminal, p.biometricCode, p.logTime, clock.now(), clock.now());
    } else journal.ingest(punches);
    let mine: Set<number> | undefined;
    for (let i = 0; i < times; i++) {
      const claimed = journal.claim(1000, { ignoreBackoff: true });
      mine ??= new Set(claimed.filter((p) => p.biometricCode === code && p.attempts === 0).map((p) => p.id));
      const ours = claimed.filter((p) => mine!.has(p.id));
      journal.release(claimed.filter((p) => !mine!.has(p.id)).map((p) => p.id));
      journal.settle(ours.map((p) => ({ id: p.id, kind: 'rejected' as const, message: message(p.biometricCode) })));
    }
  }

  const unknown = (c: string) => `Unknown biometric code ${c}`;

  it('one line per cause, with its codes, its count and what to do; never cut short', () => {
    // 17 punches of 7 codes the HRMS does not know.
    refuse('1042', 5, unknown);
    refuse('1043', 4, unknown);
    refuse('1044', 3, unknown);
    refuse('1045', 2, unknown);
    for (const c of ['1046', '1047', '1048']) refuse(c, 1, unknown);
    // A disabled employee; a message of the HRMS's own that quotes the code; one with no word at all.
    refuse('2001', 2, (c) => `Employee ${c} is disabled: punch refused`);
    refuse('3001', 2, (c) => `Batch refused: biometric code ${c} cannot be processed (HTTP 400, request refused)`);
    refuse('3002', 1, (c) => `Batch refused: biometric code ${c} cannot be processed (HTTP 400, request refused)`);
    refuse('4001', 1, () => '');

    const r = buildStatus(journal, config(), clock.now());
    const refusals = r.alerts.filter((a) => a.includes('refused'));
    expect(refusals).toEqual([
      '17 punches refused: employee not found for codes 1042, 1043, 1044, 1045, 1046 and 2 more: add them in the HRMS, then `punchgate punches retry`',
      '3 punches refused: the HRMS said "Batch refused: biometric code <code> cannot be processed (HTTP 400, request refused)" for codes 3001 and 3002: correct what it says in the HRMS, then `punchgate punches retry`',
      '2 punches refused: employee disabled in the HRMS for code 2001: enable the employee in the HRMS if their punches count, then `punchgate punches retry`',
      '1 punch refused: no reason given by the HRMS for code 4001: ask the HRMS administrator why, then `punchgate punches retry`',
    ]);
    // The counts add up to the journal's.
    expect(r.punches.rejected).toBe(17 + 3 + 2 + 1);
    // The text, the JSON and the page all carry the same lines.
    const text = formatStatus(r);
    for (const a of refusals) expect(text).toContain(`  ! ${a}\n`);
    expect(JSON.parse(JSON.stringify(r)).alerts).toEqual(r.alerts);
  });

  it('a single code is named, its quoted message shows it; given-up punches are told how to retry', () => {
    refuse('1042', 3, unknown, 2); // refused twice: given up (dead) with deadAfterAttempts 2
    refuse('1043', 1, unknown);
    refuse('5001', 1, (c) => `Invalid punch for ${c}: shift closed`, 2);
    const r = buildStatus(journal, config(), clock.now());
    expect(r.punches).toMatchObject({ rejected: 1, dead: 4 });
    expect(r.alerts).toEqual([
      '4 punches refused: employee not found for codes 1042 and 1043: add them in the HRMS, then `punchgate punches retry` and, for the 3 given up, `punchgate punches retry --state dead`',
      '1 punch refused: the HRMS said "Invalid punch for 5001: shift closed" for code 5001: correct what it says in the HRMS, then `punchgate punches retry --state dead` (given up after too many refusals)',
    ]);
  });

  it('the same refusal of punches at other times is one cause (an Odoo sink names each punch time; found by a new-user trial)', () => {
    // (Odoo's own "no open attendance" refusal is a known cause now: refusals-odoo.test.ts.)
    const odoo = (at: string) => () => `no shift of the employee covers a check-out at ${at} UTC`;
    refuse('1', 1, odoo('2026-11-29 22:09:04'));
    refuse('2', 1, odoo('2026-11-29 23:10:05'));
    refuse('3', 1, odoo('2026-11-30T06:00:00Z'));
    const r = buildStatus(journal, config(), clock.now());
    expect(r.alerts).toEqual([
      '3 punches refused: the HRMS said "no shift of the employee covers a check-out at <time> UTC" for codes 1, 2 and 3: correct what it says in the HRMS, then `punchgate punches retry`',
    ]);
  });

  it('codes and messages from outside are shown escaped; many causes end in a counted last line', () => {
    refuse('77\u001b[2J', 2, (c) => `Unknown biometric code ${c}`, 1, true);
    for (let i = 0; i < 8; i++) refuse(`60${i}`, 1, () => `Rule ${i} broken\u202e`);
    const r = buildStatus(journal, config(), clock.now());
    expect(r.alerts[0]).toBe(
      '2 punches refused: employee not found for code 77\\x1b[2J: add the employee in the HRMS, then `punchgate punches retry`',
    );
    expect(
      r.alerts
        .slice(1, 6)
        .every((a) => /^1 punch refused: the HRMS said "Rule \d broken\\u202e" for code 60\d: /.test(a)),
    ).toBe(true);
    expect(r.alerts.at(-1)).toBe(
      '3 punches refused for 3 other reasons: see `punchgate punches --state rejected --history`',
    );
    expect(r.alerts).toHaveLength(7);
    for (const a of r.alerts) expect(a).toBe(escapeControls(a)); // nothing left to escape
  });
});
