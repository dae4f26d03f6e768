import { fstatSync } from 'node:fs';

/**
 * systemd's journal reads a service's stdout and stderr as a stream, one entry per line, and takes
 * a leading `<N>` (N = 0 to 7, the syslog priority: 3 err, 4 warning, 6 info, 7 debug) as the
 * line's priority (sd-daemon(3), SyslogLevelPrefix= on by default). `journalctl -p warning` then
 * selects by it. systemd tells a service that a stream goes to the journal with JOURNAL_STREAM:
 * the device and inode numbers of that stream (systemd.exec(5)); a process checks its own fd
 * against it, so a shell redirect or a pipe to another program keeps the plain output.
 */
export function isJournalStream(fd: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const want = env.JOURNAL_STREAM?.trim();
  if (!want || !/^\d+:\d+$/.test(want)) return false;
  try {
    const st = fstatSync(fd, { bigint: true });
    return want === `${st.dev}:${st.ino}`;
  } catch {
    return false;
  }
}

/** The syslog priorities of sd-daemon(3). */
export const PRIORITY = { emerg: 0, alert: 1, crit: 2, err: 3, warning: 4, notice: 5, info: 6, debug: 7 } as const;

/** A pino level (10 trace ... 60 fatal) as a syslog priority. */
export function priorityOfLevel(level: number): number {
  if (level >= 60) return PRIORITY.crit;
  if (level >= 50) return PRIORITY.err;
  if (level >= 40) return PRIORITY.warning;
  if (level >= 30) return PRIORITY.info;
  return PRIORITY.debug;
}

/**
 * Text for the journal: each line with the priority prefix (a message of several lines keeps its
 * priority on every line, since the journal reads each line as an entry of its own).
 */
export function withPriority(priority: number, text: string): string {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  return `${body
    .split('\n')
    .map((l) => `<${priority}>${l}`)
    .join('\n')}\n`;
}
