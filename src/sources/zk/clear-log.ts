import type { SourceStateStore } from '../../journal/types.js';
import type { SourceDeps } from '../types.js';
import { ZkProtocolError, ZkTimeoutError, type ZkClient } from './client/index.js';

/**
 * The source-state key that says punchgate disabled this terminal for a clear and has not yet
 * enabled it again. Written before the disable, removed once the enable is answered: a process
 * killed between the two (SIGKILL, an OOM kill, the box's power) or an enable the terminal did not
 * answer leaves it, and the next poll enables the terminal first. A ZK terminal stays disabled
 * when the session that disabled it ends without enabling it (fingerprint, keypad and card
 * refused, "working" on its screen), until it is restarted: nobody could punch.
 */
const LEFT_DISABLED = 'zk-left-disabled';

type Log = SourceDeps['logger'];

/** Enables the terminal when an earlier poll left it disabled (its mark is set); a refusal is logged, never the poll's end. */
export async function enableIfLeftDisabled(client: ZkClient, state: SourceStateStore, terminal: string, log: Log) {
  const since = state.get(terminal, LEFT_DISABLED);
  if (!since) return;
  try {
    await client.enableDevice();
  } catch (e) {
    if (e instanceof ZkTimeoutError) {
      // Unanswered (the timeout closed the session): its log is read on a new session all the
      // same, rather than left unread at every poll; the mark stays for the next poll.
      log.warn(
        { disabledAt: since, err: e.message },
        'the terminal did not answer the enable after an earlier clear was stopped: if it shows "working" and refuses punches, restart it',
      );
      await client.connect();
      return;
    }
    if (!(e instanceof ZkProtocolError)) throw e;
    // Refused (firmware that answers ENABLEDEVICE with an error): its log is still read; the mark
    // stays and the next poll tries again.
    log.warn(
      { disabledAt: since, err: e.message },
      'the terminal refused to be enabled again after an earlier clear was stopped: if it shows "working" and refuses punches, restart it',
    );
    return;
  }
  log.warn(
    { disabledAt: since },
    'terminal enabled again: an earlier poll was stopped between disabling it for a clear and enabling it (it refused punches meanwhile)',
  );
  mark(state, terminal, '', log);
}

/**
 * What became of a clear: done, not done, or not done because the terminal never answered the
 * disable (its punches are read all the same; the poll says so in the status and does not try
 * again for a day, see poll.ts).
 */
export type ClearOutcome = 'cleared' | 'kept' | 'disable-unanswered';

/**
 * Clears the log if it still holds the records read. The terminal is disabled from the last count
 * to the clear: a punch made between them would be wiped unread. Disabled, it refuses punches at
 * the door for those few milliseconds (the person punches again), and is enabled again whatever
 * happens, by this poll or (its mark kept) the next one. A terminal that refuses to be disabled,
 * or whose mark cannot be written, is not cleared.
 *
 * A disable left unanswered (the timeout closed the session) may still have disabled the terminal
 * (its reply lost on the way): the mark stays and the terminal is enabled on a new session at once.
 * Before, the mark was removed and the poll failed: the terminal stayed disabled, refusing every
 * punch, until someone restarted it, and its status said "no answer, check the cable" although its
 * whole log had just been read.
 */
export async function clearUnlessGrown(
  client: ZkClient,
  state: SourceStateStore,
  terminal: string,
  read: number,
  log: Log,
  reason: string,
  now: number,
): Promise<ClearOutcome> {
  if (!mark(state, terminal, new Date(now).toISOString(), log)) return 'kept';
  try {
    await client.disableDevice();
  } catch (e) {
    if (e instanceof ZkTimeoutError) {
      log.warn(
        { err: e.message },
        'not clearing: the terminal did not answer the request to disable it for the clear; its punches were read and journalled',
      );
      await enableOnNewSession(client, state, terminal, log);
      return 'disable-unanswered';
    }
    // Refused (answered): it is not disabled. Anything else (the connection cut) leaves the mark:
    // the terminal may have taken the disable, and the next poll enables it first.
    if (!(e instanceof ZkProtocolError)) throw e;
    mark(state, terminal, '', log);
    log.warn(
      { err: e.message },
      'not clearing: the terminal refuses to be disabled for the clear (a punch made meanwhile would be lost)',
    );
    return 'kept';
  }
  try {
    const again = await client.getInfo();
    if (again.records !== read) {
      log.info({ before: read, now: again.records }, 'not clearing: the record count changed since the download');
      return 'kept';
    }
    await client.clearAttendanceLog();
    log.info({ records: read, reason }, 'terminal log cleared');
    return 'cleared';
  } finally {
    await client.enableDevice().then(
      () => mark(state, terminal, '', log),
      (e: unknown) => {
        log.error(
          { err: e instanceof Error ? e.message : String(e) },
          'could not enable the terminal again after clearing its log: the next poll enables it first; if it shows "working" and refuses punches meanwhile, restart it',
        );
      },
    );
  }
}

/**
 * After a disable that got no answer (its timeout closed the session): a new session and the
 * enable, so that a terminal that did take the disable takes punches again now, not at the next
 * poll. Never throws: a terminal that does not answer this either keeps its mark, and the next
 * poll enables it first.
 */
async function enableOnNewSession(client: ZkClient, state: SourceStateStore, terminal: string, log: Log) {
  try {
    await client.connect();
    await client.enableDevice();
    mark(state, terminal, '', log);
  } catch (e) {
    log.warn(
      { err: e instanceof Error ? e.message : String(e) },
      'could not enable the terminal again after its disable went unanswered: the next poll enables it first; if it shows "working" and refuses punches meanwhile, restart it',
    );
  }
}

/** Sets (or, with '', removes) the mark; false when the journal would not take it (logged). */
function mark(state: SourceStateStore, terminal: string, value: string, log: Log): boolean {
  try {
    state.set({ terminal, key: LEFT_DISABLED, value });
    return true;
  } catch (e) {
    log.warn(
      { err: e instanceof Error ? e.message : String(e) },
      value
        ? 'not clearing: the journal did not take the note that the terminal is disabled for the clear'
        : 'the note that the terminal was disabled for a clear could not be removed: the next poll enables it again (harmless)',
    );
    return false;
  }
}
