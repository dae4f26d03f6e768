/** Public types of the HRMS simulator (see index.ts for startHrmsSim). */

/** Type of an employee master field; an incoming value must match it (seed: "data type must match"). */
export type FieldType = 'string' | 'email' | 'date' | 'integer' | 'url' | 'boolean' | 'nullable-string';

export interface MappedField {
  /** Employee master field name, e.g. "Employee Name". */
  field: string;
  type: FieldType;
}

/** Administrator field mapping: payload field name -> master field. */
export type FieldMapping = Record<string, MappedField>;

export interface HrmsFaults {
  /** Delay before answering. */
  latencyMs: number;
  /** 0..1 probability of HTTP 503 for a request (deterministic with `seed`). */
  errorRate: number;
  /** 0..1 probability the connection is destroyed without an answer. */
  resetRate: number;
  /** When a reset happens, first process (record) the request, then destroy: outcome unknown to the client. */
  resetAfterProcessing: boolean;
  /** 0..1 probability of an HTML 502-style page with status 200 (nothing processed). */
  nonJsonRate: number;
  /** If > 0, Payload carries only the first N results and only those N punches are processed. */
  shortPayload: number;
  /** Every token expires at this epoch ms. */
  tokenExpiresAt: number | null;
  /** Over it (per clock second): HTTP 429 with Retry-After, nothing processed. */
  rateLimitPerSecond: number | null;
  /** A batch with more punches than this: HTTP 413, nothing recorded. */
  maxBatch: number | null;
  /** A batch containing one of these biometric codes is refused whole: HTTP 400, nothing recorded. */
  poisonCodes: string[];
  /** PRNG seed for the rates. */
  seed: number;
}

export type PunchOutcome = 'added' | 'duplicate' | 'unknown_code' | 'invalid_date' | 'disabled' | 'invalid';

export interface ReceivedPunch {
  biometriccode: string;
  logDate: string;
  devicelogId?: string;
  /** 'invalid': the element was not an object or had no usable biometriccode. */
  outcome: PunchOutcome;
  /** Number of the attendance request that carried it (1-based, counts refused requests too). */
  requestNo: number;
  /** Clock time (epoch ms) it was processed. */
  at: number;
}

/** A snapshot of one employee master record. */
export interface Employee {
  employeeId: string;
  /** 'blocked' after a disable request or an update with block = 1. */
  status: 'active' | 'blocked';
  /** The value of the master field mapped from payload field `biometriccode`, if any. */
  biometricCode: string | null;
  /** Master record keyed by master field name (Username, Employee Name, ...). */
  master: Record<string, unknown>;
  /** The same record under payload field names plus employeeId, as fetchEmployees answers it. */
  fields: Record<string, unknown>;
}

/**
 * When the attendance side consults the employees:
 * - 'auto' (default): as soon as at least one employee exists;
 * - 'employees': always (with no employee every punch is an unknown code);
 * - 'off': never (no unknown-code or disabled checks).
 */
export type RosterMode = 'auto' | 'employees' | 'off';

export interface HrmsSimOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /**
   * Accepted bearer tokens. When omitted (and none is added later with addToken), any non-empty
   * bearer token is accepted; an empty array accepts none until addToken.
   */
  tokens?: Array<string | { token: string; expiresAt?: number }>;
  /** Path word of the user operations: /api.php/system/<serviceWord>/updateUser. Default 'hrms'. */
  serviceWord?: string;
  /** Path prefix before /api.php (the path part of the client's base URL). Default ''. */
  basePath?: string;
  /** Default: the seed's fetchBulkAttendanceFromAttendanceServer path. */
  attendancePath?: string;
  /** 'capital' (default): Status/Payload as in the success sample; 'lower': status/payload. */
  keyStyle?: 'capital' | 'lower';
  /**
   * What makes a punch a resend of one already recorded (answered "already exists"):
   * 'code-time' (default), the same biometric code and logDate; 'devicelogId', the same
   * devicelogId only (an HRMS that trusts the gateway's ids: a new punch under a reused id is lost).
   */
  dedupBy?: 'code-time' | 'devicelogId';
  /** HTTP status of a token refusal; default 401. The body is always the seed's failure object. */
  authHttpStatus?: number;
  roster?: RosterMode;
  /** Default: defaultMapping() (the seed's table plus biometriccode, department, employeeId). */
  mapping?: FieldMapping;
  /** Master (or payload) field names required on create; default Username, Employee Name, Official Email. */
  mandatory?: string[];
  /** Payload field that identifies the employee; default 'username'. */
  identifyBy?: 'username' | 'email' | 'employeeId';
  /** Employees present at start, as payload-field records (validated like create requests; throws if invalid). */
  employees?: Array<Record<string, unknown>>;
  /** When given, an invalid start employee is reported here and skipped instead of throwing. */
  onInvalidEmployee?: (index: number, message: string) => void;
  faults?: Partial<HrmsFaults>;
  /** Clock for token expiry, rate limit windows and ReceivedPunch.at. */
  now?: () => number;
  /** One line per request (the CLI passes a stderr writer). Never carries a token. */
  log?: (line: string) => void;
  /** Largest accepted request body; default 10 MiB. */
  maxBodyBytes?: number;
}

export interface HrmsSim {
  /** http://HOST:PORT (plus basePath). */
  url: string;
  port: number;
  /** Every punch of every attendance request that was processed, in order. */
  received(): ReceivedPunch[];
  /** The punches recorded as attendance (outcome 'added'): the HRMS's attendance table. */
  attendance(): ReceivedPunch[];
  /** Attendance requests seen, including refused ones. */
  requests(): number;
  faults(): HrmsFaults;
  setFaults(f: Partial<HrmsFaults>): void;
  addToken(t: string, expiresAt?: number): void;
  employees(): Employee[];
  /** Runs one user-operation body as POST updateUser would (no token, no faults). */
  upsertEmployee(body: Record<string, unknown>): { status: boolean; message: string; data?: Record<string, unknown> };
  /** Back to the start state: no punches, request count 0, start faults, start employees. */
  reset(): void;
  stop(): Promise<void>;
}
