import type { Database } from 'better-sqlite3';
import { isLatin1Kept, keptBytesCount } from './kept-bytes.js';
import { codeProblem, userText } from '../punch.js';
import type { Clock } from '../util/clock.js';
import type { Punch } from '../punch.js';
import type {
  CommandTakeLimits,
  IngestResult,
  KeptCount,
  KeptUploadRecord,
  PushEventRecord,
  PushExtra,
  PushRegistration,
  PunchSink,
  PunchUpload,
  PushContact,
  PushJournal,
  PushMalformed,
  PushRefusal,
  PushTerminalRecord,
  PushUpload,
  PushUser,
  PushUserChange,
  TerminalCommand,
  TerminalCommandQueue,
  TerminalCommandResult,
  TerminalCommandState,
} from './types.js';

import { REFUSALS_BEYOND } from './types.js';
import { PreparedStatements } from './prepared.js';
import { PushZones, type PushZone } from './push-zones.js';

type Row = Record<string, unknown>;

/** Refused pushers kept at most (an attacker cycling serials must not grow the journal). */
const MAX_REFUSALS = 200;
/** Refused pushers not seen for this long are forgotten. */
const REFUSAL_KEEP_MS = 7 * 86_400_000;
/** Longest INFO result or malformed-line sample kept. */
const MAX_TEXT = 2000;
/** Kept uploads' bounds when the receiver names none (adms.keptUploads defaults). */
const DEFAULT_KEPT_BOUNDS = { maxBytes: 64 * 1024 * 1024, maxAgeMs: 30 * 86_400_000 };

function keptTaken(kept: KeptBytes, terminal: string, bytes: number): void {
  kept.total -= bytes;
  kept.byTerminal.set(terminal, (kept.byTerminal.get(terminal) ?? 0) - bytes);
}

function toRegistration(r: Row): PushRegistration {
  let facts: Record<string, string> = {};
  try {
    const parsed = JSON.parse((r.facts as string | null) ?? '{}') as unknown;
    if (parsed && typeof parsed === 'object') facts = parsed as Record<string, string>;
  } catch {
    // A damaged facts column is only a display: shown empty.
  }
  return {
    terminal: r.terminal as string,
    serial: r.serial as string,
    protocol: r.protocol as PushRegistration['protocol'],
    registryCode: r.registry_code as string | null,
    sessionId: r.session_id as string | null,
    facts,
    registeredAt: r.registered_at as number | null,
    trustedAddress: r.trusted_address as string | null,
    trustedAt: r.trusted_at as number | null,
    otherAddress: r.other_address as string | null,
    otherCount: r.other_count as number,
    otherLastAt: r.other_last_at as number | null,
    updatedAt: r.updated_at as number,
  };
}

function toKept(r: Row): KeptUploadRecord {
  return {
    id: r.id as number,
    terminal: r.terminal as string,
    serial: r.serial as string,
    table: r.tbl as string,
    reason: r.reason as string,
    receivedAt: r.received_at as number,
    lines: r.lines as number,
    bytes: r.bytes as number,
    body: r.body as string,
    ...(isLatin1Kept(r.body as string, r.bytes as number) ? { latin1: true as const } : {}),
  };
}

function toCommand(r: Row): TerminalCommand {
  return {
    id: r.id as number,
    terminal: r.terminal as string,
    command: r.command as string,
    state: r.state as TerminalCommandState,
    createdAt: r.created_at as number,
    sentAt: r.sent_at as number | null,
    sentCount: r.sent_count as number,
    doneAt: r.done_at as number | null,
    returnCode: r.return_code as number | null,
    result: r.result as string | null,
  };
}

function toPushTerminal(r: Row): PushTerminalRecord {
  return {
    terminal: r.terminal as string,
    serial: r.serial as string,
    lastContactAt: r.last_contact_at as number | null,
    address: r.address as string | null,
    pushVersion: r.push_version as string | null,
    lastUploadAt: r.last_upload_at as number | null,
    uploads: r.uploads as number,
    received: r.received as number,
    malformed: r.malformed as number,
    lastMalformed: r.last_malformed as string | null,
    lastMalformedAt: r.last_malformed_at as number | null,
  };
}

function toRefusal(r: Row): PushRefusal {
  return {
    serial: r.serial as string,
    address: r.address as string,
    reason: r.reason as PushRefusal['reason'],
    terminal: r.terminal as string | null,
    firstSeenAt: r.first_seen_at as number,
    lastSeenAt: r.last_seen_at as number,
    count: r.count as number,
  };
}

/** Tables filed under their own name per terminal at most (kept uploads; counts), beyond the protocol's own. */
const MAX_TABLES = 16;
/** Where further tables are filed (their names stay in the kept upload's reason). */
export const OTHER_TABLES = '(other tables)';
/** Codes counted under their own name per terminal and table at most. */
const MAX_CODES = 32;
const OTHER_CODES = '(other)';
/** The protocol's own tables: always filed under their name (reparse reads them by it). */
const PROTOCOL_TABLES = new Set(['attlog', 'operlog', 'userinfo', 'rtlog', 'rtstate', 'tabledata:user', 'attphoto']);
/**
 * The tables whose Stamp= is ever read back: the handshake tells ATTLOG, OPERLOG and ATTPHOTO
 * (options.ts), sync-users looks at OPERLOG and USERINFO. Only these are kept: a stamp of any
 * other table is never read, and a device inventing table names would add a row per name forever.
 */
const STAMPED_TABLES = new Set(['ATTLOG', 'OPERLOG', 'USERINFO', 'ATTPHOTO']);

/**
 * Whether an upload's extra holds anything taken in: records counted, or a table punchgate does
 * not read kept whole. Lines of a table it reads (ATTLOG, OPERLOG...) kept raw because they were
 * refused (the code rule) or unreadable are evidence, not data taken in: alone, they move no stamp,
 * so an upload whose every line was refused leaves the terminal told what it was told before.
 */
const keptSomething = (extra: PushExtra | undefined) =>
  (extra?.kept ?? []).some((k) => !PROTOCOL_TABLES.has(k.table.toLowerCase())) ||
  (extra?.events ?? []).some((e) => e.count > 0);

const clip = (s: string | null | undefined) => (s == null ? null : s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s);

/**
 * The journal's tables for push terminals (ADMS): stamps, per-terminal state, the command
 * queue, enrolled users and refused pushers. Punches go through the journal's own ingest,
 * nested in the same transaction as the stamp they came with: both are durable, or neither.
 */
/**
 * The bytes of kept uploads per terminal as this store last knew them, exact while no other
 * connection has written to the journal since (SQLite's data_version says when one has).
 */
interface KeptBytes {
  version: number;
  total: number;
  byTerminal: Map<string, number>;
}

export class PushStore implements PushJournal, TerminalCommandQueue {
  /**
   * Kept for the bound of kept uploads: summing push_kept (up to its 64 MB of bodies) for every
   * upload that keeps a line held the event loop longer the more was kept (issue 35). Only the
   * daemon's receiver adds kept uploads; `terminals reparse`, another process, only takes away
   * (and is seen by data_version). A transaction rolled back after its kept lines were counted
   * leaves the figure high: the bound is then kept a little early, never passed.
   */
  private keptBytes: KeptBytes | undefined;
  /** Each statement prepared once: an upload's commit ran six, prepared again at each upload. */
  private readonly statements: PreparedStatements;
  private readonly zones: PushZones;

  constructor(
    private readonly db: Database,
    private readonly sink: PunchSink,
    private readonly clock: Clock,
  ) {
    this.statements = new PreparedStatements(db);
    this.zones = new PushZones(this.statements);
  }

  /** A terminal fetched its options and was told this UTC offset (minutes). */
  zoneTold(terminal: string, serial: string, minutes: number): void {
    this.zones.told(terminal, serial, minutes, this.clock.now());
  }

  /** The offset a terminal was told and any CHECK queued since (push-zones.ts). */
  zone(terminal: string, serial: string): PushZone | undefined {
    return this.zones.get(terminal, serial);
  }

  /** Every push terminal's zone record (status). */
  zonesTold(): (PushZone & { terminal: string; serial: string })[] {
    return this.zones.all();
  }

  /** Queues `CHECK` for a terminal to learn the offset `minutes`, and records that it was asked. */
  askZoneCheck(terminal: string, serial: string, minutes: number): TerminalCommand {
    return this.db
      .transaction(() => {
        const { command } = this.enqueue(terminal, 'CHECK');
        this.zones.asked(terminal, serial, minutes, this.clock.now());
        return command;
      })
      .immediate();
  }

  commitPunches(uploads: readonly PunchUpload[]): IngestResult[] {
    const counters = this.statements.get(
      `INSERT INTO push_terminals (terminal, serial, last_upload_at, uploads, received, malformed, last_malformed, last_malformed_at)
       VALUES (@terminal, @serial, @at, 1, @received, @malformed, @first, @firstAt)
       ON CONFLICT (terminal) DO UPDATE SET serial = excluded.serial, last_upload_at = excluded.last_upload_at,
         uploads = uploads + 1, received = received + excluded.received, malformed = malformed + excluded.malformed,
         last_malformed = coalesce(excluded.last_malformed, last_malformed),
         last_malformed_at = coalesce(excluded.last_malformed_at, last_malformed_at)`,
    );
    return this.db
      .transaction(() =>
        uploads.map((u) => {
          // Nested: better-sqlite3 runs the journal's own transaction as a savepoint of this one.
          // Pushed just now by a terminal whose clock cannot be read: their offsets are its clock's evidence.
          const r = this.sink.ingest(u.punches, { timezone: u.timezone, pushed: true });
          // A stamp moves only with data journalled: an empty upload, or one whose every line was
          // refused at the journal's door, cannot move what the terminal is told.
          if (r.added + r.duplicates + r.quarantined > 0 || keptSomething(u.extra)) this.saveStamp(u.upload);
          this.writeExtra(u.upload, u.extra);
          counters.run({
            terminal: u.upload.terminal,
            serial: u.upload.serial,
            at: u.upload.at,
            received: u.punches.length,
            ...this.malformedParams(u.malformed, u.upload.at),
          });
          return r;
        }),
      )
      .immediate();
  }

  commitUsers(upload: PushUpload, users: readonly PushUser[], malformed: PushMalformed, extra?: PushExtra): void {
    this.db
      .transaction(() => {
        let stored = 0;
        for (const u of users) if (this.upsertUser(upload.terminal, upload.serial, u, upload.at)) stored++;
        // Only with something stored: an upload whose every line was refused moves no stamp.
        if (stored > 0 || keptSomething(extra)) this.saveStamp(upload);
        this.writeExtra(upload, extra);
        if (malformed.count > 0)
          this.statements
            .get(
              `INSERT INTO push_terminals (terminal, serial, malformed, last_malformed, last_malformed_at)
               VALUES (@terminal, @serial, @malformed, @first, @firstAt)
               ON CONFLICT (terminal) DO UPDATE SET malformed = malformed + excluded.malformed,
                 last_malformed = excluded.last_malformed, last_malformed_at = excluded.last_malformed_at`,
            )
            .run({ terminal: upload.terminal, serial: upload.serial, ...this.malformedParams(malformed, upload.at) });
      })
      .immediate();
  }

  commitRecords(upload: PushUpload, extra: PushExtra): void {
    this.db
      .transaction(() => {
        if (keptSomething(extra)) this.saveStamp(upload);
        this.writeExtra(upload, extra);
        this.statements
          .get(
            `INSERT INTO push_terminals (terminal, serial, last_upload_at, uploads) VALUES (?, ?, ?, 1)
             ON CONFLICT (terminal) DO UPDATE SET last_upload_at = excluded.last_upload_at, uploads = uploads + 1`,
          )
          .run(upload.terminal, upload.serial, upload.at);
      })
      .immediate();
  }

  /**
   * The table a kept upload or count is filed under: its own, while the terminal has fewer than
   * MAX_TABLES tables on file (the protocol's own always), else OTHER_TABLES. A device sending
   * thousands of invented table names adds one row, one alert and one /metrics series, not thousands.
   */
  private fileUnder(terminal: string, table: string, from: 'push_kept_counts' | 'push_events'): string {
    if (PROTOCOL_TABLES.has(table.toLowerCase())) return table;
    const known = this.statements
      .get(`SELECT 1 FROM ${from} WHERE terminal = ? AND tbl = ? LIMIT 1`)
      .get(terminal, table);
    if (known) return table;
    const n = (
      this.statements.get(`SELECT count(DISTINCT tbl) AS n FROM ${from} WHERE terminal = ?`).get(terminal) as {
        n: number;
      }
    ).n;
    return n < MAX_TABLES ? table : OTHER_TABLES;
  }

  /** The code a count is filed under: its own while its table has fewer than MAX_CODES, else OTHER_CODES. */
  private codeUnder(terminal: string, table: string, code: string): string {
    const c = code.slice(0, 40);
    const known = this.statements
      .get(`SELECT 1 FROM push_events WHERE terminal = ? AND tbl = ? AND code = ?`)
      .get(terminal, table, c);
    if (known) return c;
    const n = (
      this.statements
        .get(`SELECT count(*) AS n FROM push_events WHERE terminal = ? AND tbl = ?`)
        .get(terminal, table) as {
        n: number;
      }
    ).n;
    return n < MAX_CODES ? c : OTHER_CODES;
  }

  /** Kept lines and event counts of one upload; then the kept uploads are brought within their bounds. */
  private writeExtra(upload: PushUpload, extra: PushExtra | undefined): void {
    if (!extra) return;
    const { terminal, serial, at } = upload;
    if (extra.kept && extra.kept.length > 0) {
      const insert = this.statements.get(
        `INSERT INTO push_kept (terminal, serial, tbl, reason, received_at, lines, bytes, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const count = this.statements.get(
        `INSERT INTO push_kept_counts (terminal, tbl, uploads, lines, last_at, last_reason) VALUES (?, ?, 1, ?, ?, ?)
         ON CONFLICT (terminal, tbl) DO UPDATE SET uploads = uploads + 1, lines = lines + excluded.lines,
           last_at = excluded.last_at, last_reason = excluded.last_reason`,
      );
      for (const k of extra.kept) {
        const table = this.fileUnder(terminal, k.table, 'push_kept_counts');
        // Filed under OTHER_TABLES: the reason keeps the table's own name.
        const reason = clip(table === k.table ? k.reason : `table ${k.table}: ${k.reason}`);
        const bytes = keptBytesCount(k.body, k.latin1);
        insert.run(terminal, serial, table, reason, at, k.lines, bytes, k.body);
        count.run(terminal, table, k.lines, at, reason);
        this.keptAdded(terminal, bytes);
      }
      this.pruneKept(extra.keptBounds ?? DEFAULT_KEPT_BOUNDS, at);
    }
    if (extra.events && extra.events.length > 0) {
      const event = this.statements.get(
        `INSERT INTO push_events (terminal, tbl, code, count, last_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (terminal, tbl, code) DO UPDATE SET count = count + excluded.count, last_at = excluded.last_at`,
      );
      for (const e of extra.events) {
        if (e.count <= 0) continue;
        const table = this.fileUnder(terminal, e.table, 'push_events');
        event.run(terminal, table, this.codeUnder(terminal, table, e.code), e.count, at);
      }
    }
  }

  /**
   * Drops kept uploads older than the age bound, then the oldest of the terminal holding the most
   * until within the size bound; counted.
   */
  pruneKept(bounds: { maxBytes: number; maxAgeMs: number }, now: number): number {
    const dropped = new Map<string, { terminal: string; tbl: string; n: number }>();
    const note = (r: { terminal: string; tbl: string }) => {
      const key = `${r.terminal}\u0000${r.tbl}`;
      const d = dropped.get(key) ?? { terminal: r.terminal, tbl: r.tbl, n: 0 };
      d.n++;
      dropped.set(key, d);
    };
    const kept = this.keptNow();
    const old = this.statements
      .get(`DELETE FROM push_kept WHERE received_at < ? RETURNING terminal, tbl, bytes`)
      .all(now - bounds.maxAgeMs) as { terminal: string; tbl: string; bytes: number }[];
    const droppedOld = new Map<string, { terminal: string; tbl: string; n: number }>();
    for (const r of old) {
      keptTaken(kept, r.terminal, r.bytes);
      const key = `${r.terminal}\u0000${r.tbl}`;
      const d = droppedOld.get(key) ?? { terminal: r.terminal, tbl: r.tbl, n: 0 };
      d.n++;
      droppedOld.set(key, d);
    }
    if (kept.total > bounds.maxBytes) {
      // The terminal holding the most gives up its oldest first: one terminal's flood of odd
      // uploads cannot push another terminal's kept lines out of the shared bound.
      const held = new Map([...kept.byTerminal].filter(([, n]) => n > 0));
      const oldest = this.statements.get(
        `SELECT id, tbl, bytes FROM push_kept WHERE terminal = ? AND id > ? ORDER BY id LIMIT 1`,
      );
      const after = new Map<string, number>();
      let excess = kept.total - bounds.maxBytes;
      const ids: number[] = [];
      while (excess > 0 && held.size > 0) {
        const [terminal] = [...held].reduce((a, b) => (b[1] > a[1] ? b : a));
        const r = oldest.get(terminal, after.get(terminal) ?? -1) as
          { id: number; tbl: string; bytes: number } | undefined;
        if (!r) {
          held.delete(terminal);
          continue;
        }
        after.set(terminal, r.id);
        ids.push(r.id);
        note({ terminal, tbl: r.tbl });
        excess -= r.bytes;
        held.set(terminal, held.get(terminal)! - r.bytes);
        keptTaken(kept, terminal, r.bytes);
      }
      this.statements
        .get(`DELETE FROM push_kept WHERE id IN (SELECT value FROM json_each(?))`)
        .run(JSON.stringify(ids));
    }
    return this.countDropped(droppedOld.values(), 'age') + this.countDropped(dropped.values(), 'room');
  }

  /**
   * Drops at most `limit` kept uploads older than `maxAgeMs` (the oldest first), counted, in one
   * short transaction: the age bound held while no upload arrives to run pruneKept (a terminal
   * taken out of the config, its firmware fixed). `more`: older ones remain for the next step.
   * Found by a read first: nothing old, no write transaction (this runs every few seconds).
   */
  pruneKeptByAge(maxAgeMs: number, now: number, limit: number): { dropped: number; more: boolean } {
    const ids = (
      this.statements
        .get(`SELECT id FROM push_kept WHERE received_at < ? ORDER BY received_at, id LIMIT ?`)
        .all(now - maxAgeMs, limit + 1) as { id: number }[]
    ).map((r) => r.id);
    if (ids.length === 0) return { dropped: 0, more: false };
    const dropped = this.db
      .transaction(() => {
        const kept = this.keptNow();
        const rows = this.statements
          .get(
            `DELETE FROM push_kept WHERE id IN (SELECT value FROM json_each(?)) AND received_at < ?
             RETURNING terminal, tbl, bytes`,
          )
          .all(JSON.stringify(ids.slice(0, limit)), now - maxAgeMs) as {
          terminal: string;
          tbl: string;
          bytes: number;
        }[];
        const byTable = new Map<string, { terminal: string; tbl: string; n: number }>();
        for (const r of rows) {
          keptTaken(kept, r.terminal, r.bytes);
          const key = `${r.terminal}\u0000${r.tbl}`;
          const d = byTable.get(key) ?? { terminal: r.terminal, tbl: r.tbl, n: 0 };
          d.n++;
          byTable.set(key, d);
        }
        return this.countDropped(byTable.values(), 'age');
      })
      .immediate();
    return { dropped, more: ids.length > limit };
  }

  /**
   * Kept uploads dropped, added to their terminal and table's count (the status, /metrics); those
   * dropped for their age (`why`) to their own count too, so that the status says why.
   */
  private countDropped(dropped: Iterable<{ terminal: string; tbl: string; n: number }>, why: 'age' | 'room'): number {
    const count = this.statements.get(
      `UPDATE push_kept_counts SET dropped = dropped + ?, dropped_old = dropped_old + ? WHERE terminal = ? AND tbl = ?`,
    );
    let n = 0;
    for (const d of dropped) {
      count.run(d.n, why === 'age' ? d.n : 0, d.terminal, d.tbl);
      n += d.n;
    }
    return n;
  }

  /** The kept bytes, read from push_kept only when unknown or when another connection wrote since. */
  private keptNow(): KeptBytes {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (this.keptBytes?.version === version) return this.keptBytes;
    const rows = this.statements.get(`SELECT terminal, sum(bytes) AS n FROM push_kept GROUP BY terminal`).all() as {
      terminal: string;
      n: number;
    }[];
    this.keptBytes = {
      version,
      total: rows.reduce((n, r) => n + r.n, 0),
      byTerminal: new Map(rows.map((r) => [r.terminal, r.n])),
    };
    return this.keptBytes;
  }

  /** A kept upload added: counted if the figure is known (else it is read whole at the next prune). */
  private keptAdded(terminal: string, bytes: number): void {
    const kept = this.keptBytes;
    if (!kept || kept.version !== (this.db.pragma('data_version', { simple: true }) as number)) {
      this.keptBytes = undefined;
      return;
    }
    kept.total += bytes;
    kept.byTerminal.set(terminal, (kept.byTerminal.get(terminal) ?? 0) + bytes);
  }

  /** The kept uploads of a terminal (all of them when none is named), oldest first. */
  keptUploads(terminal?: string): KeptUploadRecord[] {
    const rows =
      terminal === undefined
        ? this.statements.get(`SELECT * FROM push_kept ORDER BY id`).all()
        : this.statements.get(`SELECT * FROM push_kept WHERE terminal = ? ORDER BY id`).all(terminal);
    return (rows as Row[]).map(toKept);
  }

  /** Kept uploads per terminal and table. */
  keptCounts(): KeptCount[] {
    return (
      this.statements
        .get(
          `SELECT c.*, (SELECT count(*) FROM push_kept k WHERE k.terminal = c.terminal AND k.tbl = c.tbl) AS held
           FROM push_kept_counts c ORDER BY c.terminal, c.tbl`,
        )
        .all() as Row[]
    ).map((r) => ({
      terminal: r.terminal as string,
      table: r.tbl as string,
      uploads: r.uploads as number,
      lines: r.lines as number,
      dropped: r.dropped as number,
      droppedOld: r.dropped_old as number,
      reparsed: r.reparsed as number,
      held: r.held as number,
      lastAt: r.last_at as number | null,
      lastReason: r.last_reason as string | null,
    }));
  }

  /** Records read that were not punches, per terminal, table and code. */
  pushEvents(): PushEventRecord[] {
    return (this.statements.get(`SELECT * FROM push_events ORDER BY terminal, tbl, count DESC`).all() as Row[]).map(
      (r) => ({
        terminal: r.terminal as string,
        table: r.tbl as string,
        code: r.code as string,
        count: r.count as number,
        lastAt: r.last_at as number,
      }),
    );
  }

  /**
   * A kept upload read again by a punchgate that knows its format: its punches are journalled
   * and what is still not understood stays kept (or the row goes), in one transaction.
   */
  reparseKept(
    kept: KeptUploadRecord,
    punches: readonly Punch[],
    rest: { body: string; lines: number; latin1?: true } | null,
    timezone: string | undefined,
  ): IngestResult {
    return this.db
      .transaction(() => {
        const r = this.sink.ingest(punches, { timezone });
        if (rest === null || rest.lines === 0) this.statements.get(`DELETE FROM push_kept WHERE id = ?`).run(kept.id);
        else
          this.statements
            .get(`UPDATE push_kept SET body = ?, lines = ?, bytes = ? WHERE id = ?`)
            .run(rest.body, rest.lines, keptBytesCount(rest.body, rest.latin1), kept.id);
        this.statements
          .get(`UPDATE push_kept_counts SET reparsed = reparsed + ? WHERE terminal = ? AND tbl = ?`)
          .run(kept.lines - (rest?.lines ?? 0), kept.terminal, kept.table);
        return r;
      })
      .immediate();
  }

  registration(terminal: string, serial: string): PushRegistration | undefined {
    const r = this.statements
      .get(`SELECT * FROM push_registry WHERE terminal = ? AND serial = ?`)
      .get(terminal, serial) as Row | undefined;
    return r ? toRegistration(r) : undefined;
  }

  /** Every registration kept (for the status). */
  registrations(): PushRegistration[] {
    return (this.statements.get(`SELECT * FROM push_registry ORDER BY terminal`).all() as Row[]).map(toRegistration);
  }

  /** Writes several registrations in one transaction (one disk sync for all: see RegistrationBook.flush). */
  saveRegistrations(regs: readonly PushRegistration[]): void {
    if (regs.length === 0) return;
    this.db
      .transaction(() => {
        for (const r of regs) this.saveRegistration(r);
      })
      .immediate();
  }

  saveRegistration(
    reg: Pick<PushRegistration, 'terminal' | 'serial' | 'protocol' | 'updatedAt'> &
      Partial<
        Pick<
          PushRegistration,
          | 'registryCode'
          | 'sessionId'
          | 'facts'
          | 'registeredAt'
          | 'trustedAddress'
          | 'trustedAt'
          | 'otherAddress'
          | 'otherCount'
          | 'otherLastAt'
        >
      >,
  ): PushRegistration {
    return toRegistration(
      this.statements
        .get(
          `INSERT INTO push_registry (terminal, serial, protocol, registry_code, session_id, facts, registered_at,
             trusted_address, trusted_at, other_address, other_count, other_last_at, updated_at)
           VALUES (@terminal, @serial, @protocol, @registryCode, @sessionId, @facts, @registeredAt,
             @trustedAddress, @trustedAt, @otherAddress, coalesce(@otherCount, 0), @otherLastAt, @updatedAt)
           ON CONFLICT (terminal, serial) DO UPDATE SET protocol = excluded.protocol,
             registry_code = coalesce(excluded.registry_code, registry_code),
             session_id = coalesce(excluded.session_id, session_id),
             facts = coalesce(excluded.facts, facts),
             registered_at = coalesce(excluded.registered_at, registered_at),
             trusted_address = coalesce(excluded.trusted_address, trusted_address),
             trusted_at = coalesce(excluded.trusted_at, trusted_at),
             other_address = coalesce(excluded.other_address, other_address),
             other_count = coalesce(@otherCount, other_count),
             other_last_at = coalesce(excluded.other_last_at, other_last_at),
             updated_at = excluded.updated_at
           RETURNING *`,
        )
        .get({
          terminal: reg.terminal,
          serial: reg.serial,
          protocol: reg.protocol,
          registryCode: reg.registryCode ?? null,
          sessionId: reg.sessionId ?? null,
          facts: reg.facts === undefined ? null : JSON.stringify(reg.facts),
          registeredAt: reg.registeredAt ?? null,
          trustedAddress: reg.trustedAddress ?? null,
          trustedAt: reg.trustedAt ?? null,
          otherAddress: reg.otherAddress ?? null,
          otherCount: reg.otherCount ?? null,
          otherLastAt: reg.otherLastAt ?? null,
          updatedAt: reg.updatedAt,
        }) as Row,
    );
  }

  private malformedParams(m: PushMalformed, at: number) {
    return { malformed: m.count, first: m.count > 0 ? clip(m.first) : null, firstAt: m.count > 0 ? at : null };
  }

  private saveStamp(upload: PushUpload): void {
    if (upload.stamp === null || !STAMPED_TABLES.has(upload.table.toUpperCase())) return;
    this.statements
      .get(
        `INSERT INTO push_stamps (terminal, serial, tbl, stamp, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (terminal, serial, tbl) DO UPDATE SET stamp = excluded.stamp, updated_at = excluded.updated_at`,
      )
      .run(upload.terminal, upload.serial, upload.table.toUpperCase(), upload.stamp, upload.at);
  }

  /** True: stored. */
  private upsertUser(terminal: string, serial: string, u: PushUser, at: number): boolean {
    // The door of users a push terminal reports: a PIN must be a code (the parser checks it too).
    if (codeProblem(u.pin) !== undefined) return false;
    this.statements
      .get(
        `INSERT INTO terminal_users (terminal, serial, pin, name, card, privilege, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (terminal, serial, pin) DO UPDATE SET name = excluded.name, card = excluded.card,
           privilege = excluded.privilege, updated_at = excluded.updated_at`,
      )
      .run(terminal, serial, u.pin, userText(u.name), userText(u.card), u.privilege, at);
    return true;
  }

  stamps(terminal: string, serial: string): Record<string, string> {
    const rows = this.statements
      .get(`SELECT tbl, stamp FROM push_stamps WHERE terminal = ? AND serial = ?`)
      .all(terminal, serial) as { tbl: string; stamp: string }[];
    return Object.fromEntries(rows.map((r) => [r.tbl, r.stamp]));
  }

  pushTerminals(): PushTerminalRecord[] {
    return (this.statements.get(`SELECT * FROM push_terminals ORDER BY terminal`).all() as Row[]).map(toPushTerminal);
  }

  recordContacts(contacts: readonly PushContact[]): void {
    if (contacts.length === 0) return;
    const push = this.statements.get(
      `INSERT INTO push_terminals (terminal, serial, last_contact_at, address, push_version)
       VALUES (@terminal, @serial, @at, @address, @pushVersion)
       ON CONFLICT (terminal) DO UPDATE SET serial = excluded.serial, last_contact_at = excluded.last_contact_at,
         address = excluded.address, push_version = coalesce(excluded.push_version, push_version)`,
    );
    const ledger = this.statements.get(
      `INSERT INTO terminals (name, serial, online, last_poll_at, last_success_at, offline_since, last_error, firmware, records, users)
       VALUES (@terminal, @serial, @online, @at, @at, @offlineSince, NULL, @firmware, @records, @users)
       ON CONFLICT (name) DO UPDATE SET serial = excluded.serial, online = excluded.online,
         last_poll_at = excluded.last_poll_at, last_success_at = excluded.last_success_at,
         offline_since = excluded.offline_since, last_error = NULL,
         firmware = coalesce(excluded.firmware, firmware), records = coalesce(excluded.records, records),
         users = coalesce(excluded.users, users)`,
    );
    const forgive = this.statements.get(
      `DELETE FROM push_refusals WHERE serial = ? AND (reason = 'unknown' OR address = ?)`,
    );
    this.db
      .transaction(() => {
        for (const c of contacts) {
          const p = {
            terminal: c.terminal,
            serial: c.serial,
            at: c.lastContactAt,
            address: c.address,
            pushVersion: c.pushVersion ?? null,
            online: c.online ? 1 : 0,
            offlineSince: c.offlineSince,
            firmware: c.firmware ?? null,
            records: c.records ?? null,
            users: c.users ?? null,
          };
          push.run(p);
          ledger.run(p);
          // Accepted now: an earlier refusal of this serial (from this address) is no longer news.
          forgive.run(c.serial, c.address);
        }
      })
      .immediate();
  }

  recordRefusals(refusals: readonly PushRefusal[]): void {
    if (refusals.length === 0) return;
    const now = this.clock.now();
    const upsert = this.statements.get(
      `INSERT INTO push_refusals (serial, address, reason, terminal, first_seen_at, last_seen_at, count)
       VALUES (@serial, @address, @reason, @terminal, @firstSeenAt, @lastSeenAt, @count)
       ON CONFLICT (serial, address) DO UPDATE SET reason = excluded.reason, terminal = excluded.terminal,
         last_seen_at = excluded.last_seen_at, count = count + excluded.count`,
    );
    this.db
      .transaction(() => {
        for (const r of refusals) upsert.run(r);
        this.statements.get(`DELETE FROM push_refusals WHERE last_seen_at < ?`).run(now - REFUSAL_KEEP_MS);
        // Bounded per reason: a flood of invented serials cannot evict the evidence of a serial
        // pushing from outside its allowFrom. What goes is summed in the reason's row beyond the
        // bound (REFUSALS_BEYOND), so that the counts the status gives stay whole.
        const fold = this.statements.get(
          `INSERT INTO push_refusals (serial, address, reason, terminal, first_seen_at, last_seen_at, count)
           VALUES (@serial, '${REFUSALS_BEYOND}', @reason, @terminal, @firstSeenAt, @lastSeenAt, @count)
           ON CONFLICT (serial, address) DO UPDATE SET count = count + excluded.count,
             first_seen_at = min(first_seen_at, excluded.first_seen_at), last_seen_at = max(last_seen_at, excluded.last_seen_at)`,
        );
        for (const reason of ['unknown', 'address'] as const) {
          const excess = this.statements
            .get(
              `DELETE FROM push_refusals WHERE reason = @reason AND address <> '${REFUSALS_BEYOND}' AND rowid NOT IN
                 (SELECT rowid FROM push_refusals WHERE reason = @reason AND address <> '${REFUSALS_BEYOND}'
                  ORDER BY last_seen_at DESC LIMIT @max)
               RETURNING serial, terminal, first_seen_at AS firstSeenAt, last_seen_at AS lastSeenAt, count`,
            )
            .all({ reason, max: MAX_REFUSALS }) as Pick<
            PushRefusal,
            'serial' | 'terminal' | 'firstSeenAt' | 'lastSeenAt' | 'count'
          >[];
          for (const r of excess) fold.run({ ...r, reason, serial: reason === 'unknown' ? REFUSALS_BEYOND : r.serial });
        }
      })
      .immediate();
  }

  /** Refused pushers seen since `sinceMs`, most recent first. */
  refusals(sinceMs = 0): PushRefusal[] {
    return (
      this.statements
        .get(`SELECT * FROM push_refusals WHERE last_seen_at >= ? ORDER BY last_seen_at DESC`)
        .all(sinceMs) as Row[]
    ).map(toRefusal);
  }

  /** The users a push terminal reported (for its current serial), by PIN. */
  users(terminal: string, serial: string): (PushUser & { updatedAt: number })[] {
    return (
      this.statements
        .get(
          `SELECT pin, name, card, privilege, updated_at AS updatedAt FROM terminal_users
           WHERE terminal = ? AND serial = ? ORDER BY length(pin), pin`,
        )
        .all(terminal, serial) as (PushUser & { updatedAt: number })[]
    ).map((u) => ({ ...u }));
  }

  enqueue(terminal: string, command: string): { command: TerminalCommand; created: boolean } {
    if (/[\r\n]/.test(command) || command.trim() === '') {
      throw new Error('a terminal command is one non-empty line');
    }
    return this.db
      .transaction(() => {
        const open = this.statements
          .get(
            `SELECT * FROM terminal_commands WHERE terminal = ? AND command = ? AND state IN ('queued', 'sent') ORDER BY id LIMIT 1`,
          )
          .get(terminal, command) as Row | undefined;
        if (open) return { command: toCommand(open), created: false };
        const r = this.statements
          .get(
            `INSERT INTO terminal_commands (terminal, command, state, created_at) VALUES (?, ?, 'queued', ?) RETURNING *`,
          )
          .get(terminal, command, this.clock.now()) as Row;
        return { command: toCommand(r), created: true };
      })
      .immediate();
  }

  commands(terminal: string, opts: { limit?: number } = {}): TerminalCommand[] {
    const limit = Math.max(1, Math.floor(opts.limit ?? 50));
    return (
      this.statements
        .get(`SELECT * FROM terminal_commands WHERE terminal = ? ORDER BY id DESC LIMIT ?`)
        .all(terminal, limit) as Row[]
    ).map(toCommand);
  }

  /** The newest `command` queued for the terminal, whatever its state (the status's zone check). */
  latestCommand(terminal: string, command: string): TerminalCommand | undefined {
    const r = this.statements
      .get(`SELECT * FROM terminal_commands WHERE terminal = ? AND command = ? ORDER BY id DESC LIMIT 1`)
      .get(terminal, command) as Row | undefined;
    return r ? toCommand(r) : undefined;
  }

  openCommands(terminal: string): TerminalCommand[] {
    return (
      this.statements
        .get(`SELECT * FROM terminal_commands WHERE terminal = ? AND state IN ('queued', 'sent') ORDER BY id`)
        .all(terminal) as Row[]
    ).map(toCommand);
  }

  takeCommands(terminal: string, now: number, limits: CommandTakeLimits): TerminalCommand[] {
    const candidates = (
      this.statements
        .get(
          `SELECT * FROM terminal_commands WHERE terminal = ? AND state IN ('queued', 'sent')
           AND (state = 'queued' OR sent_at <= ?) ORDER BY id LIMIT ?`,
        )
        .all(terminal, now - limits.resendAfterMs, limits.max * 2) as Row[]
    ).map(toCommand);
    const out: TerminalCommand[] = [];
    const failed: TerminalCommand[] = [];
    let bytes = 0;
    for (const c of candidates) {
      if (c.state === 'sent' && !limits.mayResend(c.command)) continue;
      const why = limits.unsendable?.(c.command) ?? null;
      if (why !== null) {
        failed.push({ ...c, state: 'failed', doneAt: now, returnCode: null, result: why });
        continue;
      }
      bytes += c.command.length + 24;
      if (out.length >= limits.max || (out.length > 0 && bytes > limits.maxBytes)) break;
      out.push(c);
      if (limits.isLast(c.command)) break;
    }
    if (out.length === 0 && failed.length === 0) return out;
    this.db
      .transaction(() => {
        // Settled here, not marked sent: it could never be sent, and would otherwise wait (and be
        // warned about) at every resend for ever.
        const fail = this.statements.get(
          `UPDATE terminal_commands SET state = 'failed', done_at = ?, return_code = NULL, result = ?
           WHERE id = ? AND state IN ('queued', 'sent')`,
        );
        for (const c of failed) fail.run(now, c.result, c.id);
        if (out.length > 0)
          this.statements
            .get(
              `UPDATE terminal_commands SET state = 'sent', sent_at = ?, sent_count = sent_count + 1, sent_to = ?
               WHERE id IN (SELECT value FROM json_each(?)) AND state IN ('queued', 'sent')`,
            )
            .run(now, limits.to ?? null, JSON.stringify(out.map((c) => c.id)));
      })
      .immediate();
    return [
      ...out.map((c): TerminalCommand => ({ ...c, state: 'sent', sentAt: now, sentCount: c.sentCount + 1 })),
      ...failed,
    ];
  }

  settleCommands(
    terminal: string,
    serial: string,
    results: readonly TerminalCommandResult[],
    now: number,
    effect?: (command: string) => PushUserChange | undefined,
    from?: string,
  ): { settled: TerminalCommand[]; unknown: string[] } {
    // Only a command handed to this terminal, at the address the result comes from, and not yet
    // settled: a result for a command still queued (never sent), settled already, another
    // terminal's, or handed to another address, changes nothing.
    const get = this.statements.get(
      `SELECT * FROM terminal_commands WHERE id = ? AND terminal = ? AND state = 'sent'
       AND (sent_to IS NULL OR @from IS NULL OR sent_to = @from)`,
    );
    const settle = this.statements.get(
      `UPDATE terminal_commands SET state = ?, done_at = ?, return_code = ?, result = ? WHERE id = ? RETURNING *`,
    );
    const removeUser = this.statements.get(`DELETE FROM terminal_users WHERE terminal = ? AND serial = ? AND pin = ?`);
    const settled: TerminalCommand[] = [];
    const unknown: string[] = [];
    this.db
      .transaction(() => {
        for (const r of results) {
          const id = /^\d{1,15}$/.test(r.id) ? Number(r.id) : NaN;
          const row = Number.isSafeInteger(id)
            ? (get.get(id, terminal, { from: from ?? null }) as Row | undefined)
            : undefined;
          if (!row) {
            unknown.push(r.id);
            continue;
          }
          const state: TerminalCommandState = r.returnCode >= 0 ? 'done' : 'failed';
          const done = toCommand(settle.get(state, now, r.returnCode, clip(r.content ?? null), id) as Row);
          settled.push(done);
          const change = state === 'done' ? effect?.(done.command) : undefined;
          if (change && 'upsert' in change) this.upsertUser(terminal, serial, change.upsert, now);
          else if (change) removeUser.run(terminal, serial, change.remove);
        }
      })
      .immediate();
    return { settled, unknown };
  }

  /** The receiver's record of one terminal. */
  pushTerminal(terminal: string): PushTerminalRecord | undefined {
    const r = this.statements.get(`SELECT * FROM push_terminals WHERE terminal = ?`).get(terminal) as Row | undefined;
    return r ? toPushTerminal(r) : undefined;
  }
}
