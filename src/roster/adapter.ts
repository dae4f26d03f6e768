/**
 * What user sync needs from a terminal, whatever its kind. The planner is the same for every
 * kind; each kind brings one adapter: ZK terminals (zk/), push terminals (push/: an ADMS command
 * queue, results are 'queued' until the terminal confirms them) and Hikvision terminals (hikvision/: ISAPI).
 */
import type { Change, ChangeResult, TerminalProfile, TerminalUser } from './types.js';
import type { TerminalFault } from '../sources/poll-outcome.js';

/** A fingerprint template as backed up (biometric data: never logged or exported). */
export interface UserTemplate {
  finger: number;
  valid: number;
  template: Buffer;
}

/** Where a removed user is saved before the removal; throws when it cannot save (then no removal). */
export interface BackupSink {
  save(backup: {
    terminal: string;
    serial: string;
    fpVersion: string | null;
    user: TerminalUser;
    reason: string;
    templates: readonly UserTemplate[];
  }): void;
}

export interface TerminalSnapshot {
  users: TerminalUser[];
  profile: TerminalProfile;
  /** What the admin should know about this read (commands still waiting for a push terminal...). */
  notes?: string[];
}

export interface ApplyOutcome {
  /** One result per change, in the order given. */
  results: ChangeResult[];
  /** Things the admin must know (the terminal could not be re-enabled, a read-back failed...). */
  warnings: string[];
  /** Information, not trouble (where the results of queued changes will show). */
  notes?: string[];
}

export interface UserSyncAdapter {
  readonly terminal: string;
  readonly kind: string;
  /** Where the terminal is, for messages (host:port, serial number). */
  readonly address: string;
  /** Connects and reads the users and what the terminal can store. Throws when it cannot be reached. */
  read(): Promise<TerminalSnapshot>;
  /**
   * Applies the changes of a plan made from the last read(). Never throws for a single change.
   * Called with no change too (a real run with nothing to do): a ZK terminal is then enabled, in
   * case an earlier run broke off while it was disabled.
   * Once `stop` aborts (the admin interrupted the command), the change in progress ends and the
   * others are not attempted; the terminal is let go as after any run.
   */
  apply(changes: readonly Change[], backups: BackupSink, stop?: AbortSignal): Promise<ApplyOutcome>;
  /** Why `read` could not reach the terminal, in the words of the status and `check`, with the fix. */
  describeFault?(e: unknown): TerminalFault;
  /** Lets go of the terminal (never throws). */
  close(): Promise<void>;
}
