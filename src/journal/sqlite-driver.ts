import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The better-sqlite3 binding for this Node.js.
 *
 * better-sqlite3 12 (built from source, works on Node 20 and 22) aborts the process on Node 24
 * when the garbage collector frees one of its statements (`RemoveEnvironmentCleanupHook`
 * assertion: Node 24 changed `node::ObjectWrap`). better-sqlite3 13 is rewritten on Node-API
 * and ships prebuilt binaries, but needs Node 22 or later. So both are dependencies (13 as
 * the optional `better-sqlite3-napi`, which npm skips on Node 20) and the newest that loads wins.
 */
function loadDriver(): typeof BetterSqlite3 {
  const require = createRequire(import.meta.url);
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) {
    try {
      return require('better-sqlite3-napi') as typeof BetterSqlite3;
    } catch {
      // Not installed, or no prebuilt binary for this platform: the source build below.
    }
  }
  return require('better-sqlite3') as typeof BetterSqlite3;
}

export const Database = loadDriver();
export type Database = BetterSqlite3.Database;
