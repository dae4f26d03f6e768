import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DownloadResult } from '../child-zk-client.js';
import type { TerminalChildReady, TerminalSpec } from '../child-terminal.js';
import { BenchChild } from './child.js';

export type ZkClientName = 'ours' | 'zklib';

export const CLIENT_LABEL: Record<ZkClientName, string> = { ours: 'punchgate', zklib: 'node-zklib 1.3.0' };

export interface DownloadRun extends DownloadResult {
  /** The child process died (node-zklib's unhandled rejection on a timeout). */
  crashed?: string;
  /** Files node-zklib left in its cwd (its DDMMYYYY.err.log). */
  leftFiles: string[];
}

export function startTerminalChild(terminals: TerminalSpec[]): Promise<BenchChild<TerminalChildReady>> {
  return BenchChild.start<TerminalChildReady>('child-terminal', { args: [JSON.stringify({ terminals })] });
}

/** One download by `client` in a fresh process whose cwd is a fresh folder under `dir`. */
export async function downloadOnce(
  client: ZkClientName,
  terminal: { port: number; users: number; punches: number },
  dir: string,
  run: number,
  timeoutMs = 120_000,
): Promise<DownloadRun> {
  const cwd = join(dir, `${client}-${run}`);
  mkdirSync(cwd, { recursive: true });
  const child = await BenchChild.start('child-zk-client', { cwd });
  const left = () => readdirSync(cwd).filter((f) => !f.startsWith('journal.db'));
  try {
    const r = await child.call<DownloadResult>('download', { client, ...terminal }, timeoutMs);
    return { ...r, leftFiles: left() };
  } catch (e) {
    const exit = await Promise.race([child.exited, new Promise<null>((r) => setTimeout(() => r(null), 1000))]);
    const crashed = exit
      ? `process died (exit code ${exit.code}, signal ${exit.signal})`
      : `no answer: ${e instanceof Error ? e.message : String(e)}`;
    return { records: 0, journalled: 0, bogus: 0, ms: NaN, journalMs: NaN, crashed, leftFiles: left() };
  } finally {
    await child.stop(2000);
  }
}

export function describeRun(r: DownloadRun): string {
  const what = r.crashed ?? (r.error ? `error: ${r.error}` : 'ok');
  const files = r.leftFiles.length ? `; left ${r.leftFiles.join(', ')} in its cwd` : '';
  const time = Number.isNaN(r.ms)
    ? '-'
    : `${(r.ms / 1000).toFixed(2)} s, of which journal ${(r.journalMs / 1000).toFixed(2)} s`;
  const bogus = r.bogus ? ` (${r.bogus} of them NOT on the terminal)` : '';
  return `${r.records} records, ${r.journalled} journalled${bogus}, ${time} (${what}${files})`;
}
