import type { AdmsConfig } from '../../config/adms.js';
import type { KeptBounds, KeptUpload } from '../../journal/types.js';
import { redactSecrets } from './malformed.js';

/**
 * What an upload answered OK carried that punchgate did not turn into punches or known records:
 * kept raw in the journal (bounded), so that nothing a terminal was told is stored is dropped in
 * silence, and a punchgate that learns the format can turn it into punches
 * (`punchgate terminals reparse`).
 */

/** The lines `numbers` (1-based) of `body`, secrets redacted. */
export function linesOf(body: string, numbers: readonly number[]): string[] {
  const all = body.split('\n');
  return numbers.map((n) => redactSecrets((all[n - 1] ?? '').replace(/\r$/, '')));
}

/** One kept upload of the given lines (undefined when there are none). */
export function keptOf(table: string, reason: string, lines: readonly string[]): KeptUpload | undefined {
  if (lines.length === 0) return undefined;
  return { table, reason, body: lines.join('\n'), lines: lines.length };
}

/** A whole body kept (an unknown table): secrets redacted line by line. */
export function keptBody(table: string, reason: string, body: string): KeptUpload {
  const lines = body.split('\n').filter((l) => l.trim() !== '');
  return { table, reason, body: lines.map(redactSecrets).join('\n'), lines: Math.max(1, lines.length) };
}

export function keptBounds(settings: AdmsConfig): KeptBounds {
  return { maxBytes: settings.keptUploads.maxBytes, maxAgeMs: settings.keptUploads.maxAgeDays * 86_400_000 };
}

/** A table name as the terminal sent it, safe to store and show (letters, digits, `_`, `:`). */
export function tableLabel(raw: string | null | undefined): string {
  const t = (raw ?? '').trim();
  return /^[A-Za-z0-9_:]{1,48}$/.test(t) ? t : t === '' ? '(none)' : '(unreadable)';
}
