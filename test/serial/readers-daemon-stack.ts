import { createPtyPair, type PtyPair } from '../../src/sim/serial/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { spawnDaemon, startStack, statusUrl } from '../daemon/stack.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

/** A serial card reader's terminal entry: `kind: serial`, `format: card` and its pty's path are added. */
export type ReaderEntry = Record<string, unknown> & { name: string };

/**
 * Card readers on pseudo-terminal pairs (one a reader, in its order), each a serial terminal of a
 * daemon stack with no other terminal, and the real daemon (dist/punchgate.js) on it, returned once
 * its status page says every reader is online. Each thing made is pushed on `cleanups` as it is
 * made (the caller runs them last first), so a start that fails half way leaves nothing behind.
 */
export async function startReadersDaemon<const T extends readonly ReaderEntry[]>(
  cleanups: (() => Promise<unknown> | unknown)[],
  readers: T,
) {
  const dir = tempDir('punchgate-readers-');
  cleanups.push(() => dir.cleanup());
  const made = await Promise.all(readers.map((r) => createPtyPair(dir.path(r.name))));
  cleanups.push(() => Promise.all(made.map((p) => p.close())));
  const stack = await startStack({
    terminals: 0,
    extraTerminals: readers.map((r, i) => ({ kind: 'serial', path: made[i]!.devicePath, format: 'card', ...r })),
  });
  cleanups.push(() => stack.stop());
  const d = spawnDaemon(stack.configPath);
  cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
  const url = await statusUrl(d);
  const status = async () => (await (await fetch(`${url}status.json`)).json()) as StatusReport;
  await waitFor(
    async () => (await status()).terminals.filter((t) => t.online).length === readers.length,
    20_000,
    `the ${readers.length} readers open`,
  );
  const pairs = made as { [K in keyof T]: PtyPair };
  return { pairs, stack, d, status };
}
