import { hash } from 'node:crypto';
import type { Database } from 'better-sqlite3';

/**
 * The `devicelogId` a punch is sent with: `<site>-<20 hex digits>`, a hash of the site and the
 * punch's identity, the one the journal deduplicates by (see the unique indexes of migration 3):
 * the device's serial where the terminal reports one, else the terminal's name; the biometric
 * code; the log time.
 *
 * So the id is a function of the punch alone, not of the journal it sits in: two journals of one
 * site (a replaced box, a restored backup, a fresh journal) never give two different punches one
 * id, and a new box that reads a terminal again sends each punch under the id the old box sent,
 * so an HRMS that recognises resends by `devicelogId` takes it as the resend it is.
 * 80 bits: for a billion punches of one site the chance that two share an id is about 4 in 10^7.
 *
 * A punch that came without a serial (an import, a serial reader, a real-time event) is filed
 * under the device its terminal is known to be, or under the terminal's name until that device is
 * learnt, and then moved to it (terminal-devices.ts): one identity whatever the route. A row that
 * may have been sent under its name keeps that id (`punches.sent_as`).
 *
 * Rows journalled before this scheme (schema migration 8) keep `<site>-<row id>`: they may have
 * been sent with it, and an id must never change once sent. `hashed_from` (table punch_ids) is
 * the first row id of the new form; row ids never go back (prune keeps the newest row).
 */
export const PUNCH_IDS_MIGRATION = `
  ALTER TABLE punches DROP COLUMN devicelog_id;
  CREATE TABLE punch_ids (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    -- Rows from this id on are sent as "<site>-<hash of the identity>"; older ones as "<site>-<id>".
    hashed_from INTEGER NOT NULL
  );
  INSERT INTO punch_ids (id, hashed_from) SELECT 1, coalesce(max(id), 0) + 1 FROM punches;
`;

/** Hex digits of the hash in an id (80 bits). */
export const PUNCH_HASH_HEX = 20;

/** What a punch's id is made of: its site and its identity. */
export interface PunchIdentity {
  site: string;
  terminal: string;
  /** The device's serial, '' when the terminal reports none (then the terminal's name counts). */
  device: string;
  biometricCode: string;
  logTime: string;
}

/** `<site>-<20 hex>`: the id of a punch with this identity, on every box of the site. */
export function hashedPunchId(p: PunchIdentity): string {
  // JSON: an unambiguous encoding of the parts, whatever characters they hold. A device's serial
  // and a terminal's name are tagged apart, as the journal keeps them apart.
  const key = JSON.stringify(
    p.device !== ''
      ? [p.site, 'device', p.device, p.logTime, p.biometricCode]
      : [p.site, 'terminal', p.terminal, p.logTime, p.biometricCode],
  );
  return `${p.site}-${hash('sha256', key, 'hex').slice(0, PUNCH_HASH_HEX)}`;
}

/** The ids of one journal's punches: hashed, or the row number for rows journalled before the scheme. */
export class PunchIds {
  private constructor(private readonly hashedFrom: number) {}

  static of(db: Database): PunchIds {
    const r = db.prepare('SELECT hashed_from AS n FROM punch_ids WHERE id = 1').get() as { n: number } | undefined;
    return new PunchIds(r?.n ?? 1);
  }

  get firstHashed(): number {
    return this.hashedFrom;
  }

  /** `sentAs`: the id a punch may have been sent with before its device was learnt (terminal-devices.ts). */
  idOf(p: PunchIdentity & { id: number; sentAs?: string | null }): string {
    if (p.sentAs) return p.sentAs;
    return p.id < this.hashedFrom ? `${p.site}-${p.id}` : hashedPunchId(p);
  }
}
