import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkJournal } from '../../src/check/journal-check.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, formatStatus, statusJson } from '../../src/status/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';

/**
 * A badge card not in a reader's code map is journalled as `card:<number>`. An HRMS that takes
 * any code (the contract does not say it must refuse one) took 33 of them, and the status, the
 * page and `check` said "No alerts": the alert counted only the punches still waiting (a new-user
 * trial). Now they say them whatever their state, and `punches retry` says it leaves the
 * delivered ones (sent again under the mapped code, the HRMS would hold both).
 */
describe('punches of cards not in the code map, delivered to an HRMS that took them', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('punchgate-unknown-cards-')));
  afterEach(() => tmp.cleanup());

  const DAY = 86_400_000;

  function setUp(): { config: Config; journal: Journal; clock: ReturnType<typeof fakeClock> } {
    writeFileSync(tmp.path('cards.csv'), 'card,biometriccode\n0004521000,1042\n');
    writeFileSync(tmp.path('token'), 'secret-token\n');
    const yaml = [
      'site: plant-a',
      'journal:\n  path: journal.db',
      'hrms:\n  baseUrl: http://127.0.0.1:9\n  tokenFile: token',
      'terminals:',
      '  - name: door\n    kind: serial\n    path: /dev/ttyUSB9\n    format: card\n    codeMap: cards.csv',
    ].join('\n');
    writeFileSync(tmp.path('punchgate.yaml'), `${yaml}\n`);
    const config = parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('journal.db') },
        hrms: { baseUrl: 'http://127.0.0.1:9', tokenFile: 'token' },
        terminals: [{ name: 'door', kind: 'serial', path: '/dev/ttyUSB9', format: 'card', codeMap: 'cards.csv' }],
      },
      tmp.dir,
    );
    const clock = fakeClock(Date.UTC(2026, 10, 29, 9, 0, 0));
    const journal = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner' });
    journal.ingest([
      { terminal: 'door', biometricCode: '1042', logTime: '2026-11-29 07:58:00' },
      { terminal: 'door', biometricCode: 'card:0004521200', logTime: '2026-11-29 07:59:00' },
      { terminal: 'door', biometricCode: 'card:0004521299', logTime: '2026-11-29 08:00:00' },
      { terminal: 'door', biometricCode: 'card:0004521299', logTime: '2026-11-29 08:01:00' },
    ]);
    // The HRMS takes every code.
    journal.settle(journal.claim(10).map((p) => ({ id: p.id, kind: 'delivered' as const })));
    return { config, journal, clock };
  }

  it('the status (text, --json, the page) and check say them after delivery, with the fix', () => {
    const { config, journal, clock } = setUp();
    try {
      expect(journal.counts().delivered).toBe(4);
      const report = buildStatus(journal, config, clock.now(), { freeBytes: 1e12 });
      const alert = report.alertItems.find((a) => a.kind === 'unknown-cards');
      expect(alert?.cause).toBe(
        "terminal door: 3 punches from 2 cards not in the code map in the last 7 days (newest card:0004521299 at 2026-11-29 08:01): 3 were delivered: the HRMS holds them under card:<number>, not under an employee's code",
      );
      expect(alert?.fix).toContain(`add the cards to the code map file ${tmp.path('cards.csv')}`);
      expect(alert?.fix).toContain('punchgate never sends a delivered punch again (the HRMS would then hold both)');
      expect(formatStatus(report)).toContain('3 punches from 2 cards not in the code map');
      expect(statusJson(report)).toContain('3 punches from 2 cards not in the code map');

      const check = checkJournal(tmp.path('journal.db'), {
        quick: true,
        terminals: config.terminals,
        now: clock.now(),
      });
      expect(check.status).toBe('warn');
      expect(check.detail).toContain('3 punches from 2 cards not in the code map in the last 7 days');

      // A week later, with no new punch of an unknown card: nothing left to say.
      clock.advance(8 * DAY);
      const later = buildStatus(journal, config, clock.now(), { freeBytes: 1e12 });
      expect(later.alertItems.filter((a) => a.kind === 'unknown-cards')).toEqual([]);
    } finally {
      journal.close();
    }
  });

  it('a card the admin adds to the code map leaves the alert at once (it stayed 7 days)', () => {
    const { config, journal, clock } = setUp();
    try {
      // One more read of a card, refused by the HRMS: it waits under card:<number>.
      journal.ingest([{ terminal: 'door', biometricCode: 'card:0004521300', logTime: '2026-11-29 08:02:00' }]);
      journal.settle(journal.claim(10).map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'unknown code' })));
      const alertOf = () =>
        buildStatus(journal, config, clock.now(), { freeBytes: 1e12 }).alertItems.filter(
          (a) => a.kind === 'unknown-cards',
        );

      // The admin maps two of the three cards: only the third is said as unknown.
      writeFileSync(tmp.path('cards.csv'), 'card,biometriccode\n0004521000,1042\n0004521299,1299\n0004521300,1300\n');
      const [one] = alertOf();
      expect(one?.cause).toBe(
        "terminal door: 1 punch from 1 card not in the code map in the last 7 days (newest card:0004521200 at 2026-11-29 07:59): 1 was delivered: the HRMS holds it under card:<number>, not under an employee's code; 1 punch of cards now in the code map waits under card:<number>",
      );
      expect(one?.fix).toContain(
        'punchgate punches retry --terminal door sends the waiting ones of cards now in the code map under their mapped codes',
      );
      const check = checkJournal(tmp.path('journal.db'), {
        quick: true,
        terminals: config.terminals,
        now: clock.now(),
      });
      expect(check.detail).toContain('1 punch from 1 card not in the code map');
      expect(check.detail).not.toContain('card:0004521299');

      // All mapped: only the waiting punch of a mapped card is left to say, for the retry.
      writeFileSync(tmp.path('cards.csv'), 'card,biometriccode\n0004521200,1200\n0004521299,1299\n0004521300,1300\n');
      const [left] = alertOf();
      expect(left?.cause).toBe('terminal door: 1 punch of cards now in the code map waits under card:<number>');
      expect(left?.fix).toBe(
        'punchgate punches retry --terminal door sends the waiting ones of cards now in the code map under their mapped codes',
      );

      // The retry remaps it (remap-cards.ts): nothing is left to say.
      journal.queries.remapUnknownCards('door', (card) => (card === '0004521300' ? '1300' : undefined));
      expect(alertOf()).toEqual([]);
    } finally {
      journal.close();
    }
  });

  it("an HRMS that takes a punch only under an employee's code took them: the admin mapped the cards there, no alert", () => {
    const { journal, clock } = setUp();
    try {
      // The same journal, delivered to Frappe HR (its employee field holds card:0004521200 and card:0004521299).
      const frappe = parseConfig(
        {
          site: 'plant-a',
          journal: { path: tmp.path('journal.db') },
          sinks: [
            { name: 'erp', kind: 'frappe', baseUrl: 'https://erp.example.com', apiKeyFile: 'k', apiSecretFile: 's' },
          ],
          terminals: [{ name: 'door', kind: 'serial', path: '/dev/ttyUSB9', format: 'card' }],
        },
        tmp.dir,
      );
      const report = buildStatus(journal, frappe, clock.now(), { freeBytes: 1e12 });
      expect(report.alertItems.filter((a) => a.kind === 'unknown-cards')).toEqual([]);
      const check = checkJournal(tmp.path('journal.db'), {
        quick: true,
        terminals: frappe.terminals,
        now: clock.now(),
        defaultSink: 'frappe',
      });
      expect(check.detail ?? '').not.toContain('not in the code map');
      // A new card read after: still unknown, said.
      journal.ingest([{ terminal: 'door', biometricCode: 'card:0004521400', logTime: '2026-11-29 08:05:00' }]);
      const [later] = buildStatus(journal, frappe, clock.now(), { freeBytes: 1e12 }).alertItems.filter(
        (a) => a.kind === 'unknown-cards',
      );
      expect(later?.cause).toContain(
        '1 punch from 1 card not in the code map in the last 7 days (newest card:0004521400',
      );
    } finally {
      journal.close();
    }
  });

  it('punches retry says the delivered ones exist and that it does not send them again', async () => {
    const { journal } = setUp();
    journal.close();
    // The admin adds the card, then retries.
    writeFileSync(tmp.path('cards.csv'), 'card,biometriccode\n0004521000,1042\n0004521299,1299\n');
    const r = await runPunchgate(['--config', tmp.path('punchgate.yaml'), 'punches', 'retry']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('0 rejected punches queued again');
    expect(r.stdout).toContain(
      'door: 3 punches of cards not in the code map when read were delivered before (newest card:0004521299 at 2026-11-29 08:01): the HRMS holds them under card:<number>; retry does not send delivered punches again',
    );
    expect(r.stdout).toContain('correct them in the HRMS');
    const after = Journal.open({ path: tmp.path('journal.db'), site: 'plant-a', mode: 'shared' });
    try {
      expect(after.counts()).toMatchObject({ delivered: 4, pending: 0 });
    } finally {
      after.close();
    }
  });

  it("punches retry with Frappe HR or Odoo first: the HRMS holds them under its employee's code, nothing to correct", async () => {
    const { journal } = setUp();
    journal.close();
    writeFileSync(tmp.path('k'), 'key\n');
    writeFileSync(tmp.path('s'), 'secret\n');
    const sinks = {
      frappe:
        '  - name: erp\n    kind: frappe\n    baseUrl: https://erp.example.com\n    apiKeyFile: k\n    apiSecretFile: s',
      odoo: '  - name: erp\n    kind: odoo\n    baseUrl: https://odoo.example.com\n    database: odoo\n    apiKeyFile: k',
    };
    for (const [kind, sink] of Object.entries(sinks)) {
      const yaml = [
        'site: plant-a',
        'journal:\n  path: journal.db',
        `sinks:\n${sink}`,
        'terminals:',
        '  - name: door\n    kind: serial\n    path: /dev/ttyUSB9\n    format: card\n    codeMap: cards.csv',
      ].join('\n');
      writeFileSync(tmp.path(`${kind}.yaml`), `${yaml}\n`);
      const r = await runPunchgate(['--config', tmp.path(`${kind}.yaml`), 'punches', 'retry']);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout, kind).toContain(
        'door: 3 punches of cards not in the code map when read were delivered before (newest card:0004521299 at 2026-11-29 08:01): the HRMS holds them under the employee who holds each card:<number> code there (it takes a punch only under a code one of its employees holds); retry does not send delivered punches again (the HRMS would then hold both)\n',
      );
      expect(r.stdout, kind).not.toContain('correct them in the HRMS');
    }
  });
});
