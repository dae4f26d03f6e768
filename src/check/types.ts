/** One line of `punchgate check`: what was checked, how it went, and what to try when it did not. */
export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface CheckResult {
  /** `config`, `journal`, `disk`, `terminal gate-1`, `hrms`... */
  name: string;
  status: CheckStatus;
  /** What was found, in plain words. Never a secret. */
  detail: string;
  /** For a warning or failure: the fix to try, in plain words. */
  fix?: string;
  /** A config that cannot be used: its `path: message` lines. */
  problems?: string[];
  /** A terminal check: the serial number the device answered with. */
  serial?: string;
  /** A terminal check: how far its clock is off this box's (seconds, + ahead), where it was read. */
  skewSeconds?: number;
}

export interface CheckReport {
  /** The punchgate version that ran the checks. */
  version: string;
  /** True when nothing failed (warnings allowed). */
  ok: boolean;
  /** 0 all passed (warnings allowed), 78 bad config (1 with --quick), 1 any other failure. */
  exitCode: number;
  quick: boolean;
  checks: CheckResult[];
}

export const pass = (name: string, detail: string): CheckResult => ({ name, status: 'pass', detail });
export const warn = (name: string, detail: string, fix?: string): CheckResult => ({
  name,
  status: 'warn',
  detail,
  ...(fix ? { fix } : {}),
});
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'fail', detail, fix });

export { errorCode } from '../util/errors.js';

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
