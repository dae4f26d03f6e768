import type { JournalCounts } from '../journal/types.js';

/** What `punchgate status`, the status log and `status --json` show. */
export interface TerminalStatus {
  name: string;
  kind: string;
  online: boolean;
  lastPollAt: string | null;
  /** Last time the terminal answered (a poll or a push that worked). */
  lastSuccessAt: string | null;
  skewSeconds: number | null;
  records: number | null;
  users: number | null;
  serial: string;
  offlineSince: string | null;
  lastError: string | null;
  /** Set when the address answered with another serial than before. */
  previousSerial: string | null;
}

export interface StatusReport {
  site: string;
  generatedAt: string;
  punches: JournalCounts;
  oldestPending: { logTime: string; terminal: string; queuedAt: string } | null;
  delivery: {
    auth: 'ok' | 'failed' | 'unknown';
    authFailedSince: string | null;
    lastAttemptAt: string | null;
    lastSuccessAt: string | null;
    lastResult: string | null;
    lastError: string | null;
    lastErrorAt: string | null;
  };
  terminals: TerminalStatus[];
  alerts: string[];
}
