import { readFileSync } from 'node:fs';

/**
 * How many files and connections this process may hold open at once (its soft `RLIMIT_NOFILE`,
 * `ulimit -n`, systemd's `LimitNOFILE=`), read from /proc/self/limits; undefined where that file
 * does not exist or says "unlimited". Node offers no getrlimit: this is the Linux way to ask.
 */
export function openFilesLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!m || m[1] === 'unlimited') return undefined;
  return Number(m[1]);
}

/** A receiver held below its configured bounds by the file handle limit (the status's alert). */
export interface FileHandleShortage {
  /** The process's file handle limit (`ulimit -n`). */
  limit: number;
  /** `adms.maxConnections` as configured. */
  configured: number;
  /** What the receiver takes at once now. */
  maxConnections: number;
  /** About how many handles the config wants: the limit to set at least. */
  wanted: number;
  /**
   * The largest `adms.maxConnections` this limit serves whole (the alert then goes), when there is
   * one: the fix names it, as "lower adms.maxConnections" alone left the admin guessing, and a
   * guess under what the bound counts kept the alert (a trial: 8 under `ulimit -n 128`).
   */
  fitsWith?: number;
}
