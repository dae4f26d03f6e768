import { Database } from '../../src/journal/sqlite-driver.js';
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Overwrites with zeros one leaf page of the punches table of a stopped journal (a failing SD card):
 * the second oldest, which a start does not read and later appends never touch, so SQLite says
 * nothing until a read reaches it or `quick_check` runs. Returns the page's number.
 */
export function zeroOldPunchPage(journal: string): number {
  const db = new Database(journal, { readonly: true, fileMustExist: true });
  let pageno: number;
  let pageSize: number;
  try {
    ({ pageno } = db
      .prepare("SELECT pageno FROM dbstat WHERE name = 'punches' AND pagetype = 'leaf' ORDER BY path LIMIT 1 OFFSET 1")
      .get() as { pageno: number });
    pageSize = db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
  const fd = openSync(journal, 'r+');
  try {
    writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, (pageno - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
  return pageno;
}
