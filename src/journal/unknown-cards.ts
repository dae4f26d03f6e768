import type { Database } from 'better-sqlite3';
import { WAITING_CARDS_TERM } from './not-routed.js';

/**
 * The punches of unknown badge cards (codes `card:<number>`, UNKNOWN_CARD_PREFIX) journalled
 * lately, whatever their state. An HRMS that takes any code accepts them: delivered, they left the
 * undelivered index (punch-counts.ts) and the status said "No alerts" while 33 punches went to
 * the HRMS under `card:...` (a new-user trial). This index holds every such punch by the time it
 * was journalled, so the status, the page and `check` read the last days of them, never the
 * delivered history of the other codes (issue 35). Part of a migration: never change.
 */
export const CARD_CODES_MIGRATION = `
  CREATE INDEX punches_card_codes ON punches (created_at, terminal, biometric_code, state, log_time)
    WHERE biometric_code >= 'card:' AND biometric_code < 'card;';
`;

/** How far back the status looks for punches of unknown cards (delivered ones included). */
export const UNKNOWN_CARDS_DAYS = 7;

export interface RecentUnknownCards {
  terminal: string;
  /** Punches of unknown cards journalled in the window, and of how many cards. */
  punches: number;
  cards: number;
  /** Of them: delivered (the HRMS holds them under `card:...`). */
  delivered: number;
  /** The newest punch's code and time (the terminal's wall clock). */
  newestCode: string;
  newestLogTime: string;
  /** Up to 10 of the codes, newest first. */
  codes: string[];
}

/**
 * Whether a terminal now knows a card journalled as `code` (`card:<number>`): its code map gives it
 * an employee's code. Such a card is no longer unknown, whatever its punches were journalled as.
 */
export type KnownCard = (terminal: string, code: string) => boolean;

/** Whether the journal has punches_card_codes (migration 23): older ones answer no card rather than scan the table. */
function hasCardCodesIndex(db: Database): boolean {
  return (
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'punches_card_codes'`).get() !== undefined
  );
}

/**
 * Per terminal, the punches of unknown cards journalled since `since` (epoch ms), through
 * punches_card_codes (a range of its first column), leaving out the cards `known` holds now (an
 * admin who mapped a card was told about it for days after). A journal older than that index
 * answers nothing rather than read the whole table.
 */
export function recentUnknownCards(db: Database, since: number, known?: KnownCard): RecentUnknownCards[] {
  if (!hasCardCodesIndex(db)) return [];
  const rows = db
    .prepare(
      `SELECT terminal, biometric_code AS code, count(*) AS n, sum(state = 'delivered') AS delivered,
              max(log_time) AS newest
         FROM punches INDEXED BY punches_card_codes
        WHERE biometric_code >= 'card:' AND biometric_code < 'card;' AND created_at >= ?
        GROUP BY terminal, biometric_code`,
    )
    .all(since) as { terminal: string; code: string; n: number; delivered: number; newest: string }[];
  const out = new Map<string, RecentUnknownCards & { byTime: { code: string; newest: string }[] }>();
  for (const r of rows) {
    if (known?.(r.terminal, r.code)) continue;
    const t = out.get(r.terminal) ?? {
      terminal: r.terminal,
      punches: 0,
      cards: 0,
      delivered: 0,
      newestCode: r.code,
      newestLogTime: r.newest,
      codes: [],
      byTime: [],
    };
    t.punches += r.n;
    t.cards++;
    t.delivered += r.delivered;
    if (r.newest > t.newestLogTime) {
      t.newestCode = r.code;
      t.newestLogTime = r.newest;
    }
    t.byTime.push({ code: r.code, newest: r.newest });
    out.set(r.terminal, t);
  }
  return [...out.values()].map(({ byTime, ...t }) => ({
    ...t,
    codes: byTime
      .sort((a, b) => (a.newest < b.newest ? 1 : -1))
      .slice(0, 10)
      .map((c) => c.code),
  }));
}

/**
 * The codes of unknown cards (`card:<number>`) of which a punch journalled since `since` was
 * delivered to the default sink, per terminal, through punches_card_codes. For an HRMS that takes
 * a punch only under a code one of its employees holds, such a card is known there.
 */
export function deliveredCardCodes(db: Database, since: number): { terminal: string; code: string }[] {
  if (!hasCardCodesIndex(db)) return [];
  return db
    .prepare(
      `SELECT DISTINCT terminal, biometric_code AS code
         FROM punches INDEXED BY punches_card_codes
        WHERE biometric_code >= 'card:' AND biometric_code < 'card;' AND created_at >= ? AND state = 'delivered'`,
    )
    .all(since) as { terminal: string; code: string }[];
}

export interface WaitingUnknownCards {
  terminal: string;
  /** Waiting punches of cards still unknown, and up to 10 of their codes. */
  count: number;
  codes: string[];
  /** Waiting punches of cards `known` holds now: still under `card:<number>` until a retry remaps them. */
  mapped: number;
}

/**
 * Undelivered punches of unknown badge cards, per terminal, whatever their age: read through
 * their own partial index (punches_unknown_cards), whatever the journal holds besides. Not one
 * never meant for the first sink (not_routed, not-routed.ts): nothing waits for it. Those of cards
 * `known` holds now are counted apart (`mapped`): their card is known, their code not yet.
 */
export function waitingUnknownCards(db: Database, known?: KnownCard): WaitingUnknownCards[] {
  const rows = db
    .prepare(
      `SELECT terminal, biometric_code AS code, count(*) AS n FROM punches
        WHERE ${WAITING_CARDS_TERM} GROUP BY terminal, biometric_code`,
    )
    .all() as { terminal: string; code: string; n: number }[];
  const out = new Map<string, WaitingUnknownCards>();
  for (const r of rows) {
    const t = out.get(r.terminal) ?? { terminal: r.terminal, count: 0, codes: [], mapped: 0 };
    if (known?.(r.terminal, r.code)) t.mapped += r.n;
    else {
      t.count += r.n;
      if (t.codes.length < 10) t.codes.push(r.code);
    }
    out.set(r.terminal, t);
  }
  return [...out.values()];
}
