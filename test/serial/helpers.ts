import { execFileSync } from 'node:child_process';
import { pino, type Logger } from 'pino';
import { serialTerminalSchema, type SerialTerminalConfig } from '../../src/config/terminals.js';
import type { IngestOptions, IngestResult, PunchSink } from '../../src/journal/types.js';
import type { Punch } from '../../src/punch.js';

/** The pty tests need socat: without it they fail with this message instead of being skipped. */
export function requireSocat(): void {
  try {
    execFileSync('socat', ['-V'], { stdio: 'ignore' });
  } catch {
    throw new Error('socat is required by the serial tests (real pseudo-terminal pairs): apt-get install -y socat');
  }
}

/** A config as the schema produces it (defaults filled in). */
export function serialConfig(
  over: Partial<Record<keyof SerialTerminalConfig, unknown>> & { path: string },
): SerialTerminalConfig {
  return serialTerminalSchema.parse({ name: 'clock1', kind: 'serial', format: 'regex', ...over });
}

/** An in-memory journal with the real one's dedupe key; can be told to fail. */
export class MemorySink implements PunchSink {
  readonly punches: Punch[] = [];
  readonly calls: number[] = [];
  private readonly keys = new Set<string>();
  /** Throw on the next N ingest calls (a journal that cannot write). */
  failNext = 0;

  ingest(punches: readonly Punch[], _opts?: IngestOptions): IngestResult {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('SQLITE_BUSY: database is locked');
    }
    this.calls.push(punches.length);
    const r: IngestResult = { added: 0, duplicates: 0, quarantined: 0 };
    for (const p of punches) {
      const key = `${p.terminal}|${p.device ?? ''}|${p.biometricCode}|${p.logTime}`;
      if (this.keys.has(key)) r.duplicates++;
      else {
        this.keys.add(key);
        this.punches.push(p);
        r.added++;
      }
    }
    return r;
  }
}

export interface CapturedLog {
  logger: Logger;
  entries: Array<Record<string, unknown> & { msg: string; level: number }>;
  /** The lines as written (JSON.parse keeps the last of a key written twice). */
  raw: string[];
}

export function captureLogger(level = 'debug'): CapturedLog {
  const entries: CapturedLog['entries'] = [];
  const raw: string[] = [];
  const logger = pino(
    { level },
    {
      write: (s: string) => {
        raw.push(s);
        entries.push(JSON.parse(s));
      },
    },
  );
  return { logger, entries, raw };
}
