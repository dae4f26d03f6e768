/**
 * The mark of a backup made by `punchgate backup` (SQLite's application_id in the file's header,
 * "PGB1"): `backup --keep` removes only files that carry it (backup-folder.ts); restore clears it.
 * A journal carries 0 or this mark, never another program's id (schema-check.ts).
 */
export const BACKUP_APPLICATION_ID = 0x50474231;
