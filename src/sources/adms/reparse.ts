import type { AdmsTerminalConfig } from '../../config/terminals.js';
import type { KeptStore } from '../../journal/types.js';
import type { Punch } from '../../punch.js';
import { inoutStatusState } from '../../punch/states.js';
import { parseAttlog } from './attlog.js';
import { loneCrToLf } from './handler-kit.js';
import { byteLinesOf, keptBytes, keptOfBytes } from './kept.js';
import { parseRtlog } from './rtlog.js';
import { classifyRtlog, punchEventsOf } from './rtlog-events.js';
import { parseTransactions } from './transaction.js';

/** The access events of the `transaction` table, as they are kept (by table name, upper case). */
const TRANSACTION_TABLES = new Set(['TRANSACTION', 'TABLEDATA:TRANSACTION']);
/**
 * Punches and access events as they are kept (upper case). Their tabledata forms were kept whole
 * as "a table punchgate does not read" before this punchgate read them: reparse turns them into
 * punches now.
 */
const ATTLOG_TABLES = new Set(['ATTLOG', 'TABLEDATA:ATTLOG']);
const RTLOG_TABLES = new Set(['RTLOG', 'TABLEDATA:RTLOG']);

/** What `punchgate terminals reparse` did. */
export interface ReparseResult {
  /** Kept uploads read again (of the tables this punchgate reads). */
  uploads: number;
  /** Punches found in them: new in the journal, already there, quarantined. */
  added: number;
  duplicates: number;
  quarantined: number;
  /** Lines still not understood: kept. */
  stillKept: number;
  /** Kept uploads of tables this punchgate does not read (untouched). */
  unread: number;
  /**
   * Kept uploads of user records (OPERLOG, USERINFO, tabledata of the user table): lines of users
   * the receiver could not read. They hold users, not punches: never read as punches, untouched.
   */
  users: number;
}

/** Tables of user records, by the name they are kept under (upper case). */
const USER_TABLES = new Set(['OPERLOG', 'USERINFO', 'TABLEDATA:USER']);

/**
 * Reads a terminal's kept uploads again with this punchgate's parsers and the terminal's
 * current `punchEvents`: punches found are journalled (the journal ignores those it has), rows
 * now known as not punches are let go, and what is still not understood stays kept. Each kept
 * upload in one transaction.
 */
export function reparseKept(store: KeptStore, cfg: AdmsTerminalConfig): ReparseResult {
  const out: ReparseResult = {
    uploads: 0,
    added: 0,
    duplicates: 0,
    quarantined: 0,
    stillKept: 0,
    unread: 0,
    users: 0,
  };
  const punchEvents = punchEventsOf(cfg);
  for (const stored of store.keptUploads(cfg.name)) {
    // Kept before lone CRs were read as line ends: read with the receiver's line ends now. The
    // bytes as the terminal sent them (kept.ts), read as the receiver reads them.
    const bytes = loneCrToLf(keptBytes(stored));
    const kept = { ...stored, body: bytes.toString('utf8') };
    const punch = (pin: string, logTime: string, verify: number | null, state: number | null): Punch => ({
      terminal: cfg.name,
      device: kept.serial,
      biometricCode: pin,
      logTime,
      verifyType: verify,
      punchState: state,
    });
    let punches: Punch[];
    let rest: number[];
    const table = kept.table.toUpperCase();
    if (ATTLOG_TABLES.has(table)) {
      const parsed = parseAttlog(kept.body);
      punches = parsed.records.map((r) => punch(r.pin, r.logTime, r.verify, r.status));
      // ID card checks are no punches: they stay kept as they were.
      rest = [...parsed.malformed.map((m) => m.line), ...parsed.idCardChecks].sort((a, b) => a - b);
    } else if (RTLOG_TABLES.has(table) || TRANSACTION_TABLES.has(table)) {
      const parsed = RTLOG_TABLES.has(table) ? parseRtlog(kept.body) : parseTransactions(kept.body);
      punches = [];
      rest = parsed.malformed.map((m) => m.line);
      for (const row of parsed.rows) {
        const kind = classifyRtlog(row, punchEvents);
        if (kind === 'punch') punches.push(punch(row.pin, row.time, row.verify, inoutStatusState(row.inout)));
        else if (kind === 'unknown') rest.push(row.line);
      }
      rest.sort((a, b) => a - b);
    } else if (USER_TABLES.has(table)) {
      out.users++;
      continue;
    } else {
      out.unread++;
      continue;
    }
    const restLines = byteLinesOf(bytes, rest);
    const r = store.reparseKept(kept, punches, keptOfBytes(kept.table, kept.reason, restLines) ?? null, cfg.timezone);
    out.uploads++;
    out.added += r.added;
    out.duplicates += r.duplicates;
    out.quarantined += r.quarantined;
    out.stillKept += restLines.length;
  }
  return out;
}
