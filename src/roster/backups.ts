/** The journal as the place where removed users are backed up (see src/journal/user-backups.ts). */
import { UserBackupStore } from '../journal/user-backups.js';
import type { Journal } from '../journal/journal.js';
import type { BackupSink } from './adapter.js';

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
          privilege: b.user.privilege,
          reason: b.reason,
          templates: b.templates,
        }),
    },
  };
}
