/**
 * The transaction table of the BioTime simulator (iclock_transaction): rows numbered by the
 * database as they arrive, kept apart from the HTTP server so that a test can stop the server
 * and start another on the same table (a server restart), renumber the table (a database
 * restored or replaced) or clear it.
 */
export interface SimTransaction {
  id: number;
  emp_code: string;
  /** The terminal's wall clock, `YYYY-MM-DD HH:mm:ss`. */
  punch_time: string;
  punch_state: string;
  verify_type: number;
  work_code: string;
  terminal_sn: string;
  terminal_alias: string;
  area_alias: string;
  longitude: number | null;
  latitude: number | null;
  gps_location: string | null;
  mobile: string | null;
  source: number;
  purpose: number;
  crc: string;
  is_attendance: number;
  reserved: string | null;
  upload_time: string;
  sync_status: number;
  sync_time: string | null;
  emp: number | null;
  terminal: number | null;
  /** Extra fields as sent (a hostile row's oddities). */
  extra?: Record<string, unknown>;
}

export type NewTransaction = Omit<SimTransaction, 'id'>;

export class TransactionTable {
  private rows: SimTransaction[] = [];
  private nextId = 1;

  /** `firstId`: the id the first row gets (a database that deleted older rows numbers on from there). */
  constructor(rows: readonly NewTransaction[] = [], firstId = 1) {
    this.nextId = firstId;
    this.add(rows);
  }

  add(rows: readonly NewTransaction[]): SimTransaction[] {
    const out = rows.map((r) => ({ ...r, id: this.nextId++ }));
    for (const r of out) this.rows.push(r);
    return out;
  }

  /** Rows in id order (the table's natural order). */
  all(): readonly SimTransaction[] {
    return this.rows;
  }

  get size(): number {
    return this.rows.length;
  }

  /** A restored or replaced database: the same rows numbered again from 1 (their ids all change). */
  renumber(): void {
    this.nextId = 1;
    for (const r of this.rows) r.id = this.nextId++;
  }

  /**
   * Transactions deleted (BioTime's data clean-up of old records, or an admin deleting some): the
   * others keep their ids, and the pages of a list shift under a client reading it.
   */
  remove(ids: readonly number[]): void {
    const gone = new Set(ids);
    this.rows = this.rows.filter((r) => !gone.has(r.id));
  }

  /** The table emptied (transactions deleted, a new database): numbering starts again from 1. */
  clear(): void {
    this.rows = [];
    this.nextId = 1;
  }
}
