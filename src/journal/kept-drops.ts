/**
 * Kept push uploads dropped for their age (adms.keptUploads.maxAgeDays), counted apart from the
 * total dropped (push_kept_counts.dropped, which counts those dropped for room too): the status
 * said every drop was "to stay within adms.keptUploads", and an admin whose uploads had aged out
 * raised maxBytes. Part of a migration: never change.
 */
export const KEPT_DROPPED_OLD_MIGRATION = `
  ALTER TABLE push_kept_counts ADD COLUMN dropped_old INTEGER NOT NULL DEFAULT 0;
`;
