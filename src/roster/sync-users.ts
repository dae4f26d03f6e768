/**
 * `terminals sync-users`: for each terminal, read its users, plan (pure), and apply the plan
 * (or only show it, with --dry-run). Terminals are worked on side by side; one that cannot be
 * reached is reported and never holds up the others.
 */
import type { BackupSink, UserSyncAdapter } from './adapter.js';
import { planTerminal, type PlanGuard } from './plan.js';
import type { Change, ChangeResult, Plan, PlanOptions, RosterEntry } from './types.js';
import { messageOf } from '../util/errors.js';
import { INTERRUPTED, isStopped } from './interrupt.js';

export interface SyncOptions extends PlanOptions {
  dryRun: boolean;
  /** Aborts when the admin interrupts the command: the changes not yet made are not attempted. */
  stop?: AbortSignal;
}

export interface TerminalSyncReport {
  terminal: string;
  kind: string;
  address: string;
  /** False when the terminal could not be reached or read: nothing was changed. */
  reached: boolean;
  error?: string;
  /** What to try when the terminal could not be reached (the status's and `check`'s words). */
  fix?: string;
  plan: Plan | null;
  changes: { change: Change; result: ChangeResult }[];
  warnings: string[];
  notes: string[];
}

export async function syncTerminal(
  adapter: UserSyncAdapter,
  roster: readonly RosterEntry[],
  guard: PlanGuard,
  opts: SyncOptions,
  backups: BackupSink,
): Promise<TerminalSyncReport> {
  const report: TerminalSyncReport = {
    terminal: adapter.terminal,
    kind: adapter.kind,
    address: adapter.address,
    reached: false,
    plan: null,
    changes: [],
    warnings: [],
    notes: [],
  };
  try {
    const snapshot = await adapter.read();
    report.reached = true;
    report.notes.push(...(snapshot.notes ?? []));
    const plan = planTerminal(roster, snapshot.users, snapshot.profile, opts, guard);
    report.plan = plan;
    if (opts.dryRun) {
      report.changes = plan.changes.map((change) => ({ change, result: { status: 'planned' } }));
      return report;
    }
    if (isStopped(opts.stop)) {
      report.changes = plan.changes.map((change) => ({
        change,
        result: { status: 'not-attempted', error: INTERRUPTED },
      }));
      return report;
    }
    const outcome = await adapter.apply(plan.changes, backups, opts.stop);
    report.changes = plan.changes.map((change, i) => ({ change, result: outcome.results[i]! }));
    report.warnings = outcome.warnings;
    report.notes.push(...(outcome.notes ?? []));
  } catch (e) {
    const fault = report.reached ? undefined : adapter.describeFault?.(e);
    report.error = fault?.cause ?? messageOf(e);
    if (fault) report.fix = fault.fix;
    // Changes of a plan whose apply broke off before any result: none was made.
    if (report.plan && report.changes.length === 0) {
      report.changes = report.plan.changes.map((change) => ({
        change,
        result: { status: 'not-attempted', error: report.error },
      }));
    }
  } finally {
    await adapter.close();
  }
  return report;
}

export function syncAll(
  adapters: readonly UserSyncAdapter[],
  roster: readonly RosterEntry[],
  guard: PlanGuard,
  opts: SyncOptions,
  backups: BackupSink,
): Promise<TerminalSyncReport[]> {
  return Promise.all(adapters.map((a) => syncTerminal(a, roster, guard, opts, backups)));
}
