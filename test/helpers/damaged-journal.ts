import { Database } from '../../src/journal/sqlite-driver.js';
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Overwrites with zeros one leaf page of the punches table of a stopped journal (a failing SD card):
 * the second oldest, which a start does not read and later appends never touch, so SQLite says
 * nothing until a read reaches it or `quick_check` runs. Returns the page's number.
 */
export function zeroOldPunchPage(journal: string): number {
  return zeroPunchPage(journal, 'LIMIT 1 OFFSET 1');
}

/** The same with the newest leaf page of the punches table: the punches still owed live there. */
export function zeroNewestPunchPage(journal: string): number {
  return zeroPunchPage(journal, 'DESC LIMIT 1');
}

function zeroPunchPage(journal: string, pick: string): number {
  const db = new Database(journal, { readonly: true, fileMustExist: true });
  let pageno: number;
  let pageSize: number;
  try {
    ({ pageno } = db
      .prepare(`SELECT pageno FROM dbstat WHERE name = 'punches' AND pagetype = 'leaf' ORDER BY path ${pick}`)
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
