/**
 * The backup every kind of terminal takes before user sync removes a user (ZK, push, Dahua,
 * Hikvision): the user saved in the journal with why it was removed, so `restore-user` can bring
 * it back. What a kind adds (the uid it stores, fingerprint templates and their version) is its own.
 */
import { messageOf } from '../util/errors.js';
import type { BackupSink, UserTemplate } from './adapter.js';
import { OTHER_CARDS, type ChangeResult, type RemoveChange } from './types.js';

/** Why sync-users removed a user, as kept with its backup (and shown by `terminals backups`). */
const REASONS: Record<RemoveChange['reason'], string> = {
  inactive: 'sync-users: inactive in the roster',
  absent: 'sync-users: not in the roster (--remove-absent)',
};

/** What a terminal keeps beside the user record (none by default: uid null, no templates). */
export interface KeptWithUser {
  uid?: number | null;
  fpVersion?: string | null;
  templates?: readonly UserTemplate[];
}

/**
 * Saves the user about to be removed in the journal. Returns the failed result when it could not
 * (then the user is not removed), undefined when it is saved.
 */
export function backUpBeforeRemoval(
  backups: BackupSink,
  terminal: string,
  serial: string,
  change: RemoveChange,
  kept: KeptWithUser = {},
): ChangeResult | undefined {
  try {
    backups.save({
      terminal,
      serial,
      fpVersion: kept.fpVersion ?? null,
      user: {
        uid: kept.uid ?? null,
        code: change.code,
        name: change.name,
        // Several cards, or one past 4294967295 (OTHER_CARDS), have no one number: `cards` keeps
        // them all as the terminal spells them (found by a trial: such a person's backup kept none).
        card: change.card === OTHER_CARDS ? 0 : change.card,
        cards: change.cards ?? (change.card > 0 ? [String(change.card)] : []),
        privilege: change.privilege,
      },
      reason: REASONS[change.reason],
      templates: kept.templates ?? [],
    });
    return undefined;
  } catch (e) {
    return { status: 'failed', error: `the backup could not be saved in the journal (${messageOf(e)}); not removed` };
  }
}
