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
function loadDriver(): { driver: typeof BetterSqlite3; file: string } {
  const require = createRequire(import.meta.url);
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) {
    try {
      const driver = require('better-sqlite3-napi') as typeof BetterSqlite3;
      return { driver, file: require.resolve('better-sqlite3-napi') };
    } catch {
      // Not installed, or no prebuilt binary for this platform: the source build below.
    }
  }
  return { driver: require('better-sqlite3') as typeof BetterSqlite3, file: require.resolve('better-sqlite3') };
}

const loaded = loadDriver();
export const Database = loaded.driver;
/** Where the loaded binding's module is: a worker thread loads the same one (checkpoint-worker.ts). */
export const DRIVER_FILE = loaded.file;
export type Database = BetterSqlite3.Database;
