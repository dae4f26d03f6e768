/** What the user commands (sync-users, restore-user, copy-templates, backups) run with. */
import type { Config } from '../config/schema.js';
import type { Journal } from '../journal/journal.js';
import type { HikClientFactory } from '../sources/hikvision/index.js';
import type { ClientFactory } from '../sources/zk/poll.js';
import type { Logger } from '../util/logger.js';
import type { EmployeeFetcher } from './load-roster.js';

export interface Output {
  write(s: string): unknown;
}

export interface UserCommandDeps {
  config: Config;
  journal: Journal;
  now: () => number;
  out: Output;
  err: Output;
  /** Scrubs secrets from terminal messages (comm keys never reach them, but messages pass through anyway). */
  scrub: (s: string) => string;
  /** The HRMS client, made only for --from-hrms. */
  hrms?: () => EmployeeFetcher;
  clientFactory?: ClientFactory;
  /** Tests point Hikvision terminals at a simulator with their own options. */
  hikClientFactory?: HikClientFactory;
  /** Where a refused Hikvision password is logged (as the daemon logs it); default silent. */
  logger?: Logger;
  /**
   * Aborts when the admin interrupts the command (Ctrl-C, SIGTERM): the write in progress ends,
   * the rest are not attempted, and ZK terminals are enabled again (interrupt.ts).
   */
  stop?: AbortSignal;
}
