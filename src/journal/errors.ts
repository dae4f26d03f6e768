/** SQLite errors after which the journal cannot keep its promise: the process should exit. */
export function isFatalJournalError(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^SQLITE_(FULL|IOERR|READONLY|CORRUPT|NOTADB|CANTOPEN|PERM)/.test(code);
}
