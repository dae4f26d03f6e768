import { rmSync } from 'node:fs';
import { writePrivateFile } from '../util/private-file.js';
import { readSmallPlainFile } from '../util/small-file.js';
import { safeJson } from '../util/terminal-text.js';

/**
 * Why `punchgate run` last stopped on its own (a fatal exit: 74, 75, 78, or an unexpected crash),
 * kept beside the journal until a later start succeeds. Under systemd a daemon stopped by a
 * damaged journal is started every 5 s and stops again each time; `punchgate status` said only
 * "not running ... start it", as the daemon kept no record of why (found by a damaged-journal
 * trial). The reason and its fix are the daemon's own last line, scrubbed of secrets by the
 * writer (the process's Secrets) before they reach the file.
 */
export interface LastStop {
  /** When it stopped (ISO 8601). */
  at: string;
  /** The process's exit code. */
  exitCode: number;
  /** The daemon's last line: why it stopped, and the fix. */
  reason: string;
}

/** The record's file: beside the journal, named after it (never `journal.db-*`, SQLite's own names). */
export function lastStopPath(journalPath: string): string {
  return `${journalPath}.last-stop.json`;
}

/** Writes the record; never throws (the process is exiting, and the journal's disk may be the trouble). */
export function recordLastStop(journalPath: string, stop: LastStop): void {
  try {
    // safeJson: an unexpected crash's reason is an error's message, which may quote outside text
    // (raw C1 controls, bidi overrides): JSON's escapes, read back as the same reason.
    writePrivateFile(lastStopPath(journalPath), `${safeJson(stop, 2)}\n`);
  } catch {
    // A full or read-only disk: the daemon's last line (journalctl) still says it.
  }
}

/** A start that succeeded: what stopped an earlier run is no longer true. */
export function clearLastStop(journalPath: string): void {
  try {
    rmSync(lastStopPath(journalPath), { force: true });
  } catch {
    // Left behind, it is only read while the daemon does not run; the next fatal exit rewrites it.
  }
}

/**
 * The largest record read: the daemon's last line is a few hundred bytes, a few KB with a long
 * path in it; anything far larger is no record the daemon wrote.
 */
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * The record, or none when there is none or it is not one (a hand-edited or torn file is not
 * trusted; a link, a FIFO or a huge file put at its name is not read: small-file.ts).
 */
export function readLastStop(journalPath: string): LastStop | undefined {
  try {
    const r = JSON.parse(readSmallPlainFile(lastStopPath(journalPath), MAX_RECORD_BYTES)) as Partial<LastStop>;
    if (typeof r.at !== 'string' || !Number.isFinite(Date.parse(r.at))) return undefined;
    if (typeof r.exitCode !== 'number' || typeof r.reason !== 'string') return undefined;
    return { at: r.at, exitCode: r.exitCode, reason: r.reason };
  } catch {
    return undefined;
  }
}
