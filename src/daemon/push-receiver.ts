import type { AdmsConfig } from '../config/adms.js';
import type { AppContext } from '../context.js';
import type { Journal } from '../journal/journal.js';
import { PushStore } from '../journal/push-store.js';
import type { PushJournal } from '../journal/types.js';
import { AdmsReceiver } from '../sources/adms/index.js';
import type { FileHandleShortage } from '../util/file-limit.js';

/**
 * The push terminal receiver of `punchgate run` (when `adms.listen` is set), writing through
 * the daemon's guard: a journal that cannot keep its promise (disk full, unwritable) ends the
 * process as for every other source; a busy one makes the receiver answer "retry".
 */
export function createPushReceiver(
  adms: AdmsConfig,
  journal: Journal,
  ctx: AppContext,
  guard: <T>(fn: () => T) => T,
  onPunches: (added: number) => void,
  onListenChange?: () => void,
  fileHandles?: FileHandleShortage,
): AdmsReceiver {
  const store = new PushStore(journal.db, journal, ctx.clock);
  const guarded: PushJournal = {
    commitPunches: (...a) => guard(() => store.commitPunches(...a)),
    // The disk sync off the event loop: the terminal is answered once it is done (GroupCommit).
    commitPunchesSyncedLater: (...a) => guard(() => journal.syncedLater(() => store.commitPunches(...a))),
    commitUsers: (...a) => guard(() => store.commitUsers(...a)),
    commitRecords: (...a) => guard(() => store.commitRecords(...a)),
    // Through this store, the one that keeps the running total of kept bytes: another store on
    // the same connection would leave that total stale (data_version sees other connections only).
    pruneKeptByAge: (...a) => guard(() => store.pruneKeptByAge(...a)),
    registration: (...a) => guard(() => store.registration(...a)),
    saveRegistration: (...a) => guard(() => store.saveRegistration(...a)),
    saveRegistrations: (...a) => guard(() => store.saveRegistrations(...a)),
    stamps: (...a) => guard(() => store.stamps(...a)),
    pushTerminals: () => guard(() => store.pushTerminals()),
    recordContacts: (...a) => guard(() => store.recordContacts(...a)),
    recordRefusals: (...a) => guard(() => store.recordRefusals(...a)),
    zoneTold: (...a) => guard(() => store.zoneTold(...a)),
    zone: (...a) => guard(() => store.zone(...a)),
    askZoneCheck: (...a) => guard(() => store.askZoneCheck(...a)),
    takeCommands: (...a) => guard(() => store.takeCommands(...a)),
    settleCommands: (...a) => guard(() => store.settleCommands(...a)),
  };
  return new AdmsReceiver({
    settings: adms,
    journal: guarded,
    logger: ctx.logger,
    clock: ctx.clock,
    onPunches,
    notes: journal.sourceState,
    ...(onListenChange ? { onListenChange } : {}),
    ...(fileHandles ? { fileHandles } : {}),
  });
}
