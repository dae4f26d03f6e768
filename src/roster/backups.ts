/** The journal as the place where removed users are backed up (see src/journal/user-backups.ts). */
import { textTable } from '../util/text-table.js';
import { UserBackupStore } from '../journal/user-backups.js';
import type { Journal } from '../journal/journal.js';
import type { BackupSink } from './adapter.js';
import type { UserCommandDeps } from './command-deps.js';
import { localTime } from '../util/local-time.js';
import { safeJson } from '../util/terminal-text.js';

export function journalBackups(journal: Journal, now: () => number): { sink: BackupSink; store: UserBackupStore } {
  const store = new UserBackupStore(journal.db, now);
  return {
    store,
    sink: {
      save: (b) =>
        void store.save({
          terminal: b.terminal,
          serial: b.serial,
          fpVersion: b.fpVersion,
          code: b.user.code,
          uid: b.user.uid,
          name: b.user.name,
          card: b.user.card,
          cards: b.user.cards ?? (b.user.card > 0 ? [String(b.user.card)] : []),
          privilege: b.user.privilege,
          reason: b.reason,
          templates: b.templates,
        }),
    },
  };
}

const DAY_MS = 86_400_000;

/**
 * A name kept with U+FFFD: its bytes were no text in the terminal's character set when it was
 * read. restore-user writes such a user without a name (zk-terminal.ts nameForRecord), so the
 * listing says so first, with the code and the fix.
 */
const unreadable = (name: string) => name.includes('\ufffd');

const unreadableNote = (b: { terminal: string; code: string }) =>
  `backup of code ${b.code} from ${b.terminal}: its name was no text when it was read (kept with U+FFFD); ` +
  `punchgate terminals restore-user ${b.terminal} ${b.code} writes the user without a name rather than as garbage. ` +
  `After restoring, set the name again with sync-users; if ${b.terminal} shows names in another character set ` +
  `(GBK, Big5, windows-1256...), set encoding: for ${b.terminal} in the config so that names are read right from then on`;
const iso = (ms: number) => localTime(ms);

/** `terminals backups`: what is kept, until when; counts of fingerprints, never their bytes. */
export function listBackups(terminal: string | undefined, json: boolean, deps: UserCommandDeps): number {
  const store = new UserBackupStore(deps.journal.db, deps.now);
  const days = deps.config.terminalUsers.backupRetentionDays;
  store.prune(days);
  const list = store.list(terminal).map((b) => ({
    ...b,
    expiresAt: b.takenAt + days * DAY_MS,
    ...(unreadable(b.name) ? { nameUnreadable: true } : {}),
  }));
  if (json) {
    deps.out.write(safeJson(list, 2) + '\n');
    return 0;
  }
  deps.out.write(
    textTable(
      ['TERMINAL', 'CODE', 'NAME', 'CARDS', 'FINGERS', 'TAKEN', 'DELETED AFTER', 'RESTORED'],
      list.map((b) => [
        b.terminal,
        b.code,
        b.name,
        // Backups taken before cards were kept whole know one number at most.
        (b.cards ?? (b.card > 0 ? [String(b.card)] : [])).join(' ') || '-',
        String(b.fingers),
        iso(b.takenAt),
        iso(b.expiresAt),
        b.restoredAt ? iso(b.restoredAt) : '-',
      ]),
      { right: [4] },
    ),
  );
  for (const b of list) if (b.nameUnreadable) deps.out.write(unreadableNote(b) + '\n');
  return 0;
}
