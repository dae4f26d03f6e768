import { BIOMETRIC_FIELD, BLOCK_FIELD, EMPLOYEE_ID_FIELD, reverseMapping } from './mapping.js';
import type { Employee, FieldMapping, ReceivedPunch } from './types.js';

/** One employee as the simulator keeps it: master fields plus the account state. */
export interface EmployeeRecord {
  employeeId: string;
  master: Record<string, unknown>;
  blocked: boolean;
}

/** The users side's employee master table, also the attendance side's roster. */
export class EmployeeStore {
  private records: EmployeeRecord[] = [];
  /** Biometric code -> record, rebuilt lazily after a change (the attendance side asks per punch). */
  private byCode: Map<string, EmployeeRecord> | null = null;
  private readonly bioField: string;
  private readonly reverse: Map<string, string>;

  constructor(private readonly mapping: FieldMapping) {
    this.bioField = mapping[BIOMETRIC_FIELD]?.field ?? 'Biometric Code';
    this.reverse = reverseMapping(mapping);
  }

  get size(): number {
    return this.records.length;
  }

  all(): readonly EmployeeRecord[] {
    return this.records;
  }

  /** Finds by a master field; e-mail addresses compare case-insensitively. */
  findBy(masterField: string, value: unknown): EmployeeRecord | undefined {
    const isEmail = Object.values(this.mapping).some((f) => f.field === masterField && f.type === 'email');
    const same = (a: unknown) =>
      isEmail && typeof a === 'string' && typeof value === 'string'
        ? a.toLowerCase() === value.toLowerCase()
        : a === value;
    return this.records.find((r) => same(r.master[masterField]));
  }

  findById(id: string): EmployeeRecord | undefined {
    return this.records.find((r) => r.employeeId === id);
  }

  byBiometricCode(code: string): EmployeeRecord | undefined {
    if (!this.byCode) {
      this.byCode = new Map();
      for (const r of this.records) {
        const c = r.master[this.bioField];
        if (typeof c === 'string' && !this.byCode.has(c)) this.byCode.set(c, r);
      }
    }
    return this.byCode.get(code);
  }

  /** The master field that carries the biometric code. */
  get biometricField(): string {
    return this.bioField;
  }

  /** Next free id of the form E0001, E0002, ... */
  nextId(): string {
    for (let n = this.records.length + 1; ; n++) {
      const id = `E${String(n).padStart(4, '0')}`;
      if (!this.findById(id)) return id;
    }
  }

  add(rec: EmployeeRecord): void {
    this.records.push(rec);
    this.byCode = null;
  }

  /** Changes only the given master fields (update semantics) and, when given, the account state. */
  update(rec: EmployeeRecord, master: Record<string, unknown>, blocked?: boolean): void {
    Object.assign(rec.master, master);
    if (blocked !== undefined) rec.blocked = blocked;
    this.byCode = null;
  }

  clear(): void {
    this.records = [];
    this.byCode = null;
  }

  /** The record under payload field names, as fetchEmployees answers it. */
  payloadView(rec: EmployeeRecord): Record<string, unknown> {
    const out: Record<string, unknown> = { [EMPLOYEE_ID_FIELD]: rec.employeeId };
    for (const [master, value] of Object.entries(rec.master)) {
      const payload = this.reverse.get(master);
      if (payload !== undefined) out[payload] = value;
    }
    if (!(BLOCK_FIELD in this.mapping)) out[BLOCK_FIELD] = rec.blocked ? 1 : 0;
    return out;
  }

  snapshot(rec: EmployeeRecord): Employee {
    const code = rec.master[this.bioField];
    return {
      employeeId: rec.employeeId,
      status: rec.blocked ? 'blocked' : 'active',
      biometricCode: typeof code === 'string' ? code : null,
      master: structuredClone(rec.master),
      fields: this.payloadView(rec),
    };
  }
}

/** What the attendance side received and what it recorded as attendance. */
export class AttendanceStore {
  private log: ReceivedPunch[] = [];
  private table: ReceivedPunch[] = [];
  private keys = new Set<string>();
  private ids = new Set<string>();
  /** Attendance requests seen, refused ones included. */
  requestCount = 0;

  private static key(code: string, logDate: string): string {
    return `${code}\u0000${logDate}`;
  }

  has(code: string, logDate: string): boolean {
    return this.keys.has(AttendanceStore.key(code, logDate));
  }

  /** Whether a punch with this devicelogId is recorded as attendance. */
  hasDevicelogId(id: string): boolean {
    return this.ids.has(id);
  }

  record(p: ReceivedPunch): void {
    this.log.push(p);
    if (p.outcome === 'added') {
      this.table.push(p);
      this.keys.add(AttendanceStore.key(p.biometriccode, p.logDate));
      if (p.devicelogId !== undefined) this.ids.add(p.devicelogId);
    }
  }

  received(): ReceivedPunch[] {
    return this.log.map((p) => ({ ...p }));
  }

  attendance(): ReceivedPunch[] {
    return this.table.map((p) => ({ ...p }));
  }

  clear(): void {
    this.log = [];
    this.table = [];
    this.keys.clear();
    this.ids.clear();
    this.requestCount = 0;
  }
}
