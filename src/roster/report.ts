/**
 * What `sync-users` prints: per terminal, the counts and each change with its result (text for a
 * person, JSON for a script), and the exit code. Names are shown; fingerprint templates never are.
 */
import { quoted } from '../util/terminal-text.js';
import { EXIT } from '../util/exit-codes.js';
import type { TerminalSyncReport } from './sync-users.js';
import { cardTextOf } from './http-terminal-sync.js';
import { OTHER_CARDS, type Change, type ChangeResult, type Plan, type Roster } from './types.js';
import { firstFew } from '../util/first-few.js';

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
  kept: number;
  leftAlone: number;
  protectedAdmins: number;
  refused: number;
  failed: number;
  notAttempted: number;
  unknown: number;
  planned: number;
}

export function countsOf(r: TerminalSyncReport): SyncCounts {
  const c: SyncCounts = {
    added: 0,
    updated: 0,
    removed: 0,
    kept: r.plan?.kept ?? 0,
    leftAlone: r.plan?.leftAlone ?? 0,
    protectedAdmins: r.plan?.protectedAdmins.length ?? 0,
    refused: r.plan?.refused.length ?? 0,
    failed: 0,
    notAttempted: 0,
    unknown: 0,
    planned: 0,
  };
  for (const { change, result } of r.changes) {
    if (result.status === 'applied' || result.status === 'queued') {
      if (change.action === 'add') c.added++;
      else if (change.action === 'update') c.updated++;
      else c.removed++;
    } else if (result.status === 'failed') c.failed++;
    else if (result.status === 'not-attempted') c.notAttempted++;
    else if (result.status === 'unknown') c.unknown++;
    else c.planned++;
  }
  return c;
}

/**
 * 75 when a terminal could not be reached or a run broke off (run again later); 1 when a terminal
 * refused a change; 65 when a roster row was bad or removals were held back; 0 otherwise. The first
 * that applies wins.
 */
export function syncExitCode(roster: Roster | null, reports: readonly TerminalSyncReport[]): number {
  const counts = reports.map(countsOf);
  if (reports.some((r) => r.error !== undefined) || counts.some((c) => c.notAttempted > 0 || c.unknown > 0)) {
    return EXIT.TEMPFAIL;
  }
  if (counts.some((c) => c.failed > 0 || c.refused > 0)) return EXIT.FAILURE;
  if (roster && roster.problems.length > 0) return EXIT.DATAERR;
  // The roster looked wrong for a terminal: its removals were held back.
  if (reports.some((r) => r.plan?.heldRemovals)) return EXIT.DATAERR;
  return EXIT.OK;
}

/**
 * The card as the terminal is given it: Hikvision and Dahua keep a card as text, so `0012345678`
 * is written with its zeros and said so (the report said `12345678` for a card written as
 * `0012345678`: found by a new-user trial); ZK and push terminals keep a number.
 */
const TEXT_CARD_KINDS = new Set(['hikvision', 'dahua']);

function describe(c: Change, kind: string): string {
  const uid = c.uid === null ? '' : `uid ${c.uid}`;
  const card = !c.card ? '' : TEXT_CARD_KINDS.has(kind) ? cardTextOf(c) : String(c.card);
  if (c.action === 'add') return `${quoted(c.name)}${card ? ` card ${card}` : ''} (${uid || 'new'})`;
  if (c.action === 'update') {
    const parts: string[] = [];
    if (c.fields.includes('name')) parts.push(`name ${quoted(c.before.name)} -> ${quoted(c.name)}`);
    if (c.fields.includes('card'))
      parts.push(
        `card ${c.before.card === OTHER_CARDS ? 'other card(s)' : c.before.card || 'none'} -> ${card || 'none'}`,
      );
    return `${parts.join(', ')}${uid ? ` (${uid})` : ''}`;
  }
  const why = c.reason === 'inactive' ? 'inactive in the roster' : 'not in the roster';
  return `${quoted(c.name)} (${why}${uid ? `, ${uid}` : ''})`;
}

function outcome(r: ChangeResult): string {
  switch (r.status) {
    case 'planned':
      return 'dry run';
    case 'applied':
      return r.backedUpFingers !== undefined
        ? `applied (backed up with ${r.backedUpFingers} fingerprint(s))`
        : 'applied';
    case 'queued':
      return 'queued for the terminal';
    default:
      return `${r.status.toUpperCase()}${r.error ? `: ${r.error}` : ''}`;
  }
}

const SIGN = { add: '+', update: '~', remove: '-' } as const;

export function formatText(
  reports: readonly TerminalSyncReport[],
  dryRun: boolean,
  scrub: (s: string) => string,
): string {
  const out: string[] = [];
  for (const r of reports) {
    const head = `${r.terminal} (${r.kind} ${r.address})`;
    if (!r.reached) {
      out.push(
        `${head}: NOT REACHED: ${scrub(r.error ?? 'unknown error')}; nothing changed${r.fix ? ` — ${scrub(r.fix)}` : ''}`,
      );
      continue;
    }
    const c = countsOf(r);
    const planned = (a: Change['action']) => r.changes.filter((x) => x.change.action === a).length;
    const summary = dryRun
      ? `would add ${planned('add')}, update ${planned('update')}, remove ${planned('remove')}`
      : `${c.added} added, ${c.updated} updated, ${c.removed} removed`;
    const extra = [
      `${c.kept} unchanged`,
      `${c.leftAlone} not in the roster (left alone)`,
      c.protectedAdmins ? `${c.protectedAdmins} administrator(s) kept` : '',
      c.refused ? `${c.refused} refused` : '',
      c.failed ? `${c.failed} FAILED` : '',
      c.unknown ? `${c.unknown} UNKNOWN` : '',
      c.notAttempted ? `${c.notAttempted} NOT ATTEMPTED` : '',
      r.plan?.heldRemovals ? `${r.plan.heldRemovals.removals.length} removals HELD BACK` : '',
    ].filter(Boolean);
    out.push(`${head}: ${summary}; ${extra.join(', ')}${dryRun ? ' (dry run: nothing changed)' : ''}`);
    for (const { change, result } of r.changes) {
      out.push(
        `  ${SIGN[change.action]} ${change.action.padEnd(6)} ${change.code.padEnd(12)} ${describe(change, r.kind)}: ${scrub(outcome(result))}`,
      );
    }
    for (const a of r.plan?.protectedAdmins ?? []) {
      const why = a.reason === 'inactive' ? 'inactive in the roster' : 'not in the roster';
      out.push(
        `  ! keep   ${a.code.padEnd(12)} ${quoted(a.name)}: administrator, ${why}; not removed (--include-admins ${a.code} removes it)`,
      );
    }
    for (const f of r.plan?.refused ?? []) out.push(`  ! refuse ${f.code.padEnd(12)} ${f.where}: ${f.reason}`);
    const held = r.plan?.heldRemovals;
    if (held) out.push(heldText(held, dryRun));
    for (const w of r.warnings) out.push(`  warning: ${scrub(w)}`);
    for (const n of r.notes) out.push(`  note: ${scrub(n)}`);
    if (r.error) out.push(`  ERROR: ${scrub(r.error)}`);
  }
  return out.join('\n') + '\n';
}

/** Removals held back by the limit, in plain words with the way on. */
function heldText(held: NonNullable<Plan['heldRemovals']>, dryRun: boolean): string {
  const n = held.removals.length;
  const sample = firstFew(
    held.removals.map((c) => c.code),
    5,
  );
  return (
    `  ! REMOVALS HELD BACK: the roster ${dryRun ? 'would remove' : 'would have removed'} ${n} of the ${held.users} users on this terminal ` +
    `(${sample}), more than the limit of ${held.limit} a run may remove; nobody was removed. ` +
    `A roster that suddenly lost people (an HRMS answering part of its list, everyone blocked, a cut file) must not empty the terminals. ` +
    `Check the roster; if these removals are right, run again with --max-removals ${n} (or set terminalUsers.maxRemovals)`
  );
}

export function toJson(
  roster: Roster | null,
  source: string,
  reports: readonly TerminalSyncReport[],
  dryRun: boolean,
  exitCode: number,
  scrub: (s: string) => string,
) {
  return {
    dryRun,
    exitCode,
    roster: roster && {
      source,
      rows: roster.rows,
      used: roster.entries.length,
      skipped: roster.skipped,
      problems: roster.problems.map((p) => ({ where: p.where, message: p.message })),
    },
    terminals: reports.map((r) => ({
      terminal: r.terminal,
      kind: r.kind,
      address: r.address,
      reached: r.reached,
      ...(r.error ? { error: scrub(r.error) } : {}),
      ...(r.fix ? { fix: scrub(r.fix) } : {}),
      counts: countsOf(r),
      changes: r.changes.map(({ change, result }) => ({
        ...change,
        status: result.status,
        ...(result.error ? { error: scrub(result.error) } : {}),
        ...(result.backedUpFingers !== undefined ? { backedUpFingers: result.backedUpFingers } : {}),
      })),
      protectedAdmins: r.plan?.protectedAdmins ?? [],
      refused: r.plan?.refused ?? [],
      heldRemovals: r.plan?.heldRemovals ?? null,
      warnings: r.warnings.map(scrub),
      notes: r.notes.map(scrub),
    })),
  };
}
