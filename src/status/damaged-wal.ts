import { basename } from 'node:path';
import { importAgainWords, keptDamagedWals } from '../journal/damaged-wal.js';
import { localTimeOf } from '../util/local-time.js';
import type { Alert } from './types.js';

/**
 * Each damaged write-ahead log punchgate run kept beside the journal at a start
 * (journal/damaged-wal.ts): the punches of its unreadable writes are not in the journal, nor sent,
 * until the terminals' logs of those hours are imported again. Said while the copy is there, since
 * the daemon's one line at that start is where an admin rarely looks; removing the copy ends it.
 */
export function damagedWalAlerts(journalPath: string): Alert[] {
  return keptDamagedWals(journalPath).map((k) => {
    const at = localTimeOf(k.lastWritten);
    const writes =
      k.lostWrites === undefined ? 'the writes' : `the ${k.lostWrites} write${k.lostWrites === 1 ? '' : 's'}`;
    return {
      kind: 'journal-damaged-wal',
      cause: `the journal's write-ahead log was found damaged at a start of punchgate run and is kept beside the journal as ${basename(k.path)}: ${writes} after its damaged part (the last at ${at}) could not be read, and their punches are not in the journal, nor delivered`,
      fix: `${importAgainWords(at)}, and check the card (journalctl -k for I/O errors); then remove the kept copy: rm ${k.path}`,
    };
  });
}
