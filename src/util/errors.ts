/** The Node error code of an error or of its causes (ENOENT, ECONNREFUSED, SQLITE_NOTADB...). */
export function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur && typeof cur === 'object'; i++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The message of an error, or the thing thrown as text. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
