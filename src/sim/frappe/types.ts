import type { FrappeFaults } from './faults.js';
import type { FrappeLanguage, FrappeVersion } from './messages.js';
import type { ApiKeyPair } from './server.js';
import type { SimCheckin, SimEmployee, SimShiftType } from './store.js';

export interface FrappeSimOptions {
  host?: string;
  /** 0: any free port. */
  port?: number;
  /** Accepted API key pairs; at least one. */
  keys: ApiKeyPair[];
  /** Which method paths answer (default both: `hrms` for v14+, `erpnext` for v13 and older). */
  apps?: ReadonlyArray<'hrms' | 'erpnext'>;
  /** The Frappe major version answered like (default 15): the duplicate refusal's desk link. */
  version?: FrappeVersion;
  /** The site's language (default en): the duplicate refusal's words. */
  language?: FrappeLanguage;
  /** Employees at start: the employee field (attendance_device_id) in `fields`. */
  employees?: Array<Partial<SimEmployee>>;
  shiftTypes?: Array<Partial<SimShiftType> & { name: string }>;
  faults?: Partial<FrappeFaults>;
  now?: () => number;
  log?: (line: string) => void;
}

export interface FrappeSimStats {
  /** API requests (admin ones not counted). */
  requests: number;
  checkinCalls: number;
  inFlight: number;
  /** Most check-in calls in flight at once since the start (or reset). */
  maxInFlight: number;
}

export interface FrappeSimAdmin {
  checkins(): SimCheckin[];
  employees(): SimEmployee[];
  shiftTypes(): SimShiftType[];
  stats(): FrappeSimStats;
  faults(): FrappeFaults;
  setFaults(f: Partial<FrappeFaults>): void;
  addEmployee(e: Partial<SimEmployee>): SimEmployee;
  addShiftType(s: Partial<SimShiftType> & { name: string }): SimShiftType;
  reset(): void;
}

export interface FrappeSim extends FrappeSimAdmin {
  url: string;
  port: number;
  stop(): Promise<void>;
}
