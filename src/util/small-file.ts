import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * A small record punchgate writes itself (the last stop, the status log's JSON twin, the last
 * backup) read back, where the folder holding it is the service user's and the reader may be
 * root (`punchgate status`, `check`): whatever that user put at the name is read only when it is
 * a plain file of at most `maxBytes`. A FIFO there blocked root's status and check for good, a
 * link had root read a file of its choosing, and a huge file was read whole (found by an
 * adversarial trial). Opened with O_NOFOLLOW (a link is refused, never followed) and O_NONBLOCK
 * (a FIFO's open does not wait for a writer), then looked at on the open file.
 *
 * Throws as readFileSync does where the file is not there or cannot be opened (`code` ENOENT,
 * EACCES), a SmallFileRefused saying why otherwise.
 */
export function readSmallPlainFile(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as { code?: string }).code === 'ELOOP') throw new SmallFileRefused(path, 'is a symbolic link');
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SmallFileRefused(path, 'is not a plain file');
    if (st.size > maxBytes)
      throw new SmallFileRefused(path, `is ${st.size} bytes, more than the ${maxBytes} it can be`);
    // One byte past the size seen: punchgate replaces its records whole (a rename), so one that
    // grows while read is another writer's, not one of them.
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    for (let n = -1; n !== 0 && got < buf.length; got += n) n = readSync(fd, buf, got, buf.length - got, got);
    if (got > st.size) throw new SmallFileRefused(path, 'grew while it was read');
    return buf.toString('utf8', 0, got);
  } finally {
    closeSync(fd);
  }
}

/** What is at a record's name is no record punchgate wrote: the message says what it is. */
export class SmallFileRefused extends Error {
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super(`${path} ${why}`);
    this.name = 'SmallFileRefused';
  }
}
