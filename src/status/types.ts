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
  /** Firmware the terminal reported, if known. */
  firmware?: string | null;
  /** Push terminals (kind adms): what the receiver saw of them. `lastPollAt` is their last contact. */
  push?: PushTerminalStatus;
}

/** A push terminal (ZKTeco ADMS) as the receiver saw it. */
export interface PushTerminalStatus {
  lastContactAt: string | null;
  /** The address it last pushed from. */
  address: string | null;
  lastUploadAt: string | null;
  uploads: number;
  /** Punches received in its uploads (new and already known together). */
  received: number;
  /** Lines of its uploads that could not be read (skipped, logged). */
  malformed: number;
  lastMalformed: string | null;
  lastMalformedAt: string | null;
}

/** A serial the push receiver refused lately: not configured, or outside its terminal's allowFrom. */
export interface PushRefusalStatus {
  serial: string;
  address: string;
  reason: 'unknown' | 'address';
  terminal: string | null;
  firstSeenAt: string;
  lastSeenAt: string;
  count: number;
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
  /** Push terminals refused in the last 24 h (empty without adms.listen). */
  pushRefusals?: PushRefusalStatus[];
  alerts: string[];
}
