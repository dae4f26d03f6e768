import { SCHEMA_VERSION } from './migrations.js';

/**
 * A journal's schema version against this punchgate's, in the words every place that opens a
 * journal says it (the daemon and commands refuse, `punchgate check` reports): after a rollback to
 * an older package, `check` must not pass a journal that `punchgate run` then refuses.
 */
export interface SchemaVersionProblem {
  /** newer: written by a later punchgate, never opened for writing. older: `punchgate run` upgrades it. */
  readonly kind: 'newer' | 'older';
  readonly problem: string;
  readonly fix: string;
}

/** Undefined when the journal's schema is this punchgate's own. */
export function schemaVersionProblem(version: number): SchemaVersionProblem | undefined {
  if (version > SCHEMA_VERSION)
    return {
      kind: 'newer',
      problem: `was written by a newer punchgate (schema ${version}; this one knows up to ${SCHEMA_VERSION})`,
      fix: 'install that punchgate version again (or a newer one); the journal is left untouched',
    };
  if (version < SCHEMA_VERSION)
    return {
      kind: 'older',
      problem: `was written by an older punchgate (schema ${version}; this one needs ${SCHEMA_VERSION})`,
      fix: 'restart punchgate run once (it upgrades the journal), then run this command again',
    };
  return undefined;
}
