import { isUtf8 } from 'node:buffer';
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

/**
 * The lines `numbers` (1-based) of the body's bytes, one character per byte (latin1), secrets
 * redacted: the bytes as sent, whatever their character set, for keptOfBytes. (LF is one byte
 * in UTF-8 and in the terminals' character sets alike: the lines are the same as the text's.)
 */
export function byteLinesOf(body: Buffer, numbers: readonly number[]): string[] {
  return linesOf(body.toString('latin1'), numbers);
}

/**
 * One kept upload of lines of bytes (byteLinesOf): as UTF-8 text when they are UTF-8, else as
 * their bytes, marked (KeptUpload.latin1), so that a reparse reads what the terminal sent, not
 * U+FFFD. Undefined when there are none.
 */
export function keptOfBytes(table: string, reason: string, lines: readonly string[]): KeptUpload | undefined {
  if (lines.length === 0) return undefined;
  const joined = lines.join('\n');
  const bytes = Buffer.from(joined, 'latin1');
  if (isUtf8(bytes)) return { table, reason, body: bytes.toString('utf8'), lines: lines.length };
  return { table, reason, body: joined, lines: lines.length, latin1: true };
}

/** The bytes of a kept upload's lines, as the terminal sent them (keptOfBytes). */
export function keptBytes(kept: Pick<KeptUpload, 'body' | 'latin1'>): Buffer {
  return Buffer.from(kept.body, kept.latin1 ? 'latin1' : 'utf8');
}

/** A whole body kept (an unknown table): secrets redacted line by line, its bytes as sent (keptOfBytes). */
export function keptBody(table: string, reason: string, body: Buffer | string): KeptUpload {
  const lines = (typeof body === 'string' ? Buffer.from(body) : body)
    .toString('latin1')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const kept = keptOfBytes(table, reason, lines.map(redactSecrets));
  return kept ?? { table, reason, body: '', lines: 1 };
}

export function keptBounds(settings: AdmsConfig): KeptBounds {
  return { maxBytes: settings.keptUploads.maxBytes, maxAgeMs: settings.keptUploads.maxAgeDays * 86_400_000 };
}

/** A table name as the terminal sent it, safe to store and show (letters, digits, `_`, `:`). */
export function tableLabel(raw: string | null | undefined): string {
  const t = (raw ?? '').trim();
  return /^[A-Za-z0-9_:]{1,48}$/.test(t) ? t : t === '' ? '(none)' : '(unreadable)';
}
