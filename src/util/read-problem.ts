/** A read's failure with its code and plain words (`(ENOENT): no such file`), as the config file's: found by a new-user trial;
 * every command that reads a file it was given says it so (`employees import nope.csv` said only `(ENOENT)`). */
export function readProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const words =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'a folder, not a file'
          : code === 'ENOTDIR'
            ? 'a part of its path is not a folder'
            : undefined;
  return words ? `(${code}): ${words}` : `(${code ?? 'error'})`;
}
