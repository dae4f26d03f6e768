/** What `copy-templates` prints per target: which users and which fingers, never the template bytes. */
import type { ChangeResult } from '../types.js';
import { escapeControls, quoted } from '../../util/terminal-text.js';

export interface CopyOptions {
  from: string;
  to: string[];
  code?: string[];
  dryRun?: boolean;
  json?: boolean;
}

export interface CopyChange {
  action: 'add' | 'fingers';
  code: string;
  uid: number;
  name: string;
  /** Finger indexes copied. */
  fingers: number[];
  result: ChangeResult;
  /** Said beside the change: why the user went without its name. */
  note?: string;
  record: Buffer;
  templates: { finger: number; template: Buffer }[];
}

export interface CopyReport {
  terminal: string;
  address: string;
  reached: boolean;
  error?: string;
  /** What to try when the terminal could not be reached (the status's and `check`'s words). */
  fix?: string;
  /** Why nothing was copied to this terminal (another fingerprint algorithm). */
  refused?: string;
  changes: CopyChange[];
  kept: number;
  skipped: { code: string; reason: string }[];
  warnings: string[];
}

export function formatCopyText(
  opts: CopyOptions,
  sourceUsers: number,
  reports: readonly CopyReport[],
  scrub: (s: string) => string,
): string {
  const out = [
    `${opts.from}: ${sourceUsers} user(s) with fingerprints to copy${opts.dryRun ? ' (dry run: nothing changed)' : ''}`,
  ];
  for (const r of reports) {
    const head = `${r.terminal} (zk ${r.address})`;
    if (!r.reached) {
      out.push(
        `${head}: NOT REACHED: ${scrub(r.error ?? 'unknown error')}; nothing copied${r.fix ? ` — ${scrub(r.fix)}` : ''}`,
      );
      continue;
    }
    if (r.refused) {
      out.push(`${head}: REFUSED: ${r.refused}`);
      continue;
    }
    const n = (a: CopyChange['action']) => r.changes.filter((c) => c.action === a).length;
    const verb = opts.dryRun ? 'would add' : 'added';
    out.push(
      `${head}: ${verb} ${n('add')} user(s), fingerprints for ${n('fingers')} existing user(s); ${r.kept} unchanged`,
    );
    for (const c of r.changes) {
      const what =
        c.action === 'add'
          ? `+ add     ${c.code.padEnd(12)} ${quoted(c.name)} (uid ${c.uid})`
          : `~ fingers ${c.code.padEnd(12)} ${quoted(c.name)} (uid ${c.uid})`;
      const status =
        c.result.status === 'planned'
          ? 'dry run'
          : c.result.status === 'applied'
            ? 'applied'
            : `${c.result.status.toUpperCase()}: ${scrub(c.result.error ?? '')}`;
      out.push(`  ${what} fingers ${c.fingers.join(',')}: ${status}`);
      if (c.note) out.push(`    without its name: ${scrub(c.note)}`);
    }
    for (const s of r.skipped) out.push(`  ! skip    ${s.code.padEnd(12)} ${s.reason}`);
    for (const w of r.warnings) out.push(`  warning: ${scrub(w)}`);
    if (r.error) out.push(`  ERROR: ${scrub(r.error)}`);
  }
  // Errors, warnings and notes quote what the terminals said: each line shown as the terminal does.
  return out.map(escapeControls).join('\n') + '\n';
}

export function copyJson(
  opts: CopyOptions,
  reports: readonly CopyReport[],
  exitCode: number,
  scrub: (s: string) => string,
) {
  return {
    from: opts.from,
    dryRun: Boolean(opts.dryRun),
    exitCode,
    terminals: reports.map((r) => ({
      terminal: r.terminal,
      address: r.address,
      reached: r.reached,
      ...(r.error ? { error: scrub(r.error) } : {}),
      ...(r.fix ? { fix: scrub(r.fix) } : {}),
      ...(r.refused ? { refused: r.refused } : {}),
      kept: r.kept,
      // Never the template bytes or the raw records: which fingers, not what they hold.
      changes: r.changes.map((c) => ({
        action: c.action,
        code: c.code,
        uid: c.uid,
        name: c.name,
        fingers: c.fingers,
        status: c.result.status,
        ...(c.result.error ? { error: scrub(c.result.error) } : {}),
        ...(c.note ? { note: scrub(c.note) } : {}),
      })),
      skipped: r.skipped,
      warnings: r.warnings.map(scrub),
    })),
  };
}
