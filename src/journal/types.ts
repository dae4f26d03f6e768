import type { Punch } from '../punch.js';

/**
 * The journal's narrow interfaces. Sources see only `PunchSink`; delivery sees only
 * `DeliveryQueue`; the CLI and status see `JournalQueries` and the admin operations.
 */

export type PunchState = 'pending' | 'inflight' | 'delivered' | 'rejected' | 'dead' | 'quarantined';
export const PUNCH_STATES: readonly PunchState[] = [
  'pending',
  'inflight',
  'delivered',
  'rejected',
  'dead',
  'quarantined',
];

export interface IngestOptions {
  /** IANA zone of the source's clock, to judge "in the future" (default the box's zone). */
  timezone?: string;
  /**
   * Source state to write in the same transaction as the punches (e.g. an event cursor): it is
   * durable exactly when they are, so a crash can never leave it ahead of them.
   */
  state?: SourceStateEntry;
}

/** One value a source keeps between runs, per terminal and key. */
export interface SourceStateEntry {
  terminal: string;
  key: string;
  value: string;
}

/** Where sources read (and write, outside an ingest) what they keep between runs. */
export interface SourceStateStore {
  get(terminal: string, key: string): string | undefined;
  set(entry: SourceStateEntry): void;
}

export interface IngestResult {
  /** New punches now waiting for delivery. */
  added: number;
  /** Already in the journal (same terminal, device, biometric code and time). */
  duplicates: number;
  /** New punches held back because their time is implausible. */
  quarantined: number;
}

/** What a source writes to. One call = one transaction: all or none are durable on return. */
export interface PunchSink {
  ingest(punches: readonly Punch[], opts?: IngestOptions): IngestResult;
}

/** A punch as delivery sends it. */
export interface OutboundPunch {
  id: number;
  devicelogId: string;
  biometricCode: string;
  logTime: string;
  /** Attempts already charged (HRMS answered about this punch). */
  attempts: number;
  /** State before the claim: 'pending' or 'rejected'. */
  previousState: 'pending' | 'rejected';
}

/** What the HRMS said about one punch (or that it said nothing we can use). */
export type PunchOutcome =
  | { id: number; kind: 'delivered'; message?: string }
  | { id: number; kind: 'duplicate'; message?: string }
  | { id: number; kind: 'rejected'; message: string }
  /** Outcome unknown (short Payload, timeout after sending): back to pending, no attempt charged. */
  | { id: number; kind: 'unknown'; message?: string };

export interface ClaimOptions {
  /** Also take rejected punches whose retry time has not come yet (`flush --all`). */
  ignoreBackoff?: boolean;
}

/** What delivery works on. */
export interface DeliveryQueue {
  /**
   * Moves up to `limit` due punches (pending, and rejected whose retry time has come)
   * to `inflight`, oldest log time first, and returns them.
   */
  claim(limit: number, opts?: ClaimOptions): OutboundPunch[];
  /** Records the HRMS's answer for each claimed punch; one transaction. */
  settle(outcomes: readonly PunchOutcome[]): void;
  /** Returns claimed punches to their previous state without charging an attempt. */
  release(ids: readonly number[]): void;
  /** Epoch ms of the earliest moment a punch becomes due, or null when nothing waits. */
  nextDueAt(): number | null;
  /** Count of punches deliverable now. */
  dueCount(opts?: ClaimOptions): number;
}

export interface StoredPunch {
  id: number;
  terminal: string;
  device: string;
  biometricCode: string;
  logTime: string;
  verifyType: number | null;
  punchState: number | null;
  devicelogId: string;
  state: PunchState;
  attempts: number;
  /** Epoch ms. */
  nextAttemptAt: number | null;
  lastMessage: string | null;
  duplicate: boolean;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
}

export interface PunchFilter {
  state?: PunchState;
  terminal?: string;
  limit?: number;
}

export interface JournalCounts {
  pending: number;
  inflight: number;
  delivered: number;
  rejected: number;
  dead: number;
  quarantined: number;
}

/** Persistent record of what each terminal last reported (read by one-shot commands and status). */
export interface TerminalRecord {
  name: string;
  /** Serial number last seen at this terminal's address, '' if unknown. */
  serial: string;
  /** Previous serial when the device at the address changed; '' otherwise. */
  previousSerial: string;
  serialChangedAt: number | null;
  online: boolean;
  lastPollAt: number | null;
  lastSuccessAt: number | null;
  /** Since when the terminal has been unreachable (epoch ms), null when online. */
  offlineSince: number | null;
  lastError: string | null;
  skewSeconds: number | null;
  records: number | null;
  users: number | null;
  firmware: string | null;
}

/** Delivery's state that outlives a process, for `status` and the status log. */
export interface DeliveryRecord {
  auth: 'ok' | 'failed' | 'unknown';
  authFailedSince: number | null;
  lastAttemptAt: number | null;
  lastSuccessAt: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Short summary of the last batch: e.g. "200 sent: 198 delivered, 2 rejected". */
  lastResult: string | null;
}
