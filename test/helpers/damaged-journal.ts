import { Database } from '../../src/journal/sqlite-driver.js';
import { closeSync, copyFileSync, openSync, rmSync, writeSync } from 'node:fs';
import { Journal } from '../../src/journal/index.js';

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

/** A write-ahead log's frame: its 24-byte header and one 4096-byte page (the journal's page size). */
export const WAL_FRAME = 24 + 4096;

/**
 * A journal at `path` as a power cut leaves it: three ingests of 200 owed punches each (log times
 * 2026-11-01 to 03), all three only in the write-ahead log (the journal and its log copied while
 * the owner had them open). Made here when absent. Returns the log's path.
 */
export function walAfterPowerCut(path: string, site = 'plant-a'): string {
  const j = Journal.open({ path, site, mode: 'owner' });
  for (let b = 0; b < 3; b++)
    j.ingest(
      Array.from({ length: 200 }, (_, i) => ({
        terminal: 'gate-1',
        biometricCode: String(1000 + i),
        logTime: `2026-11-0${b + 1} 08:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`,
      })),
    );
  const wal = `${path}-wal`;
  copyFileSync(path, `${path}.cut-copy`);
  copyFileSync(wal, `${wal}.cut-copy`);
  j.close();
  copyFileSync(`${path}.cut-copy`, path);
  copyFileSync(`${wal}.cut-copy`, wal);
  for (const f of [`${path}.cut-copy`, `${wal}.cut-copy`, `${path}-shm`]) rmSync(f, { force: true });
  return wal;
}

/**
 * Changes a byte of the log's second frame (a failing card): its checksum, and every later one,
 * fail, so SQLite drops the commits after it at the next open (src/journal/damaged-wal.ts).
 */
export function damageWalFrame(wal: string): void {
  const fd = openSync(wal, 'r+');
  try {
    writeSync(fd, Buffer.from('garbage!'), 0, 8, 32 + WAL_FRAME + 24 + 100);
  } finally {
    closeSync(fd);
  }
}
