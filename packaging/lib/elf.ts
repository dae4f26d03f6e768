import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run.js';

/** The first 20 bytes of a file (an ELF header's identification and machine), or fewer. */
function head(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(20);
    const n = readSync(fd, b, 0, 20, 0);
    return b.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** The machine an ELF file is built for (e_machine), or undefined for a file that is not ELF. */
export function elfMachine(file: string): 'x86-64' | 'aarch64' | 'other' | undefined {
  const h = head(file);
  if (h.length < 20 || h.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const machine = h.readUInt16LE(18);
  return machine === 0x3e ? 'x86-64' : machine === 0xb7 ? 'aarch64' : 'other';
}

/** Every ELF file under a folder (the runtime and the native modules). */
export function elfFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => elfMachine(f) !== undefined)
    .sort();
}

export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The newest version of each symbol version family (GLIBC, GLIBCXX, CXXABI, GCC) the files need
 * from shared libraries: what decides the oldest C and C++ libraries they run with.
 */
export function symbolVersions(files: readonly string[], objdump: string): Map<string, string> {
  const newest = new Map<string, string>();
  for (const f of files) {
    for (const line of run(objdump, ['-T', f]).split('\n')) {
      if (!line.includes('*UND*')) continue;
      const m = /\b([A-Z]+)_(\d+(?:\.\d+)*)\b/.exec(line);
      if (!m) continue;
      const [, family, version] = m as unknown as [string, string, string];
      const had = newest.get(family);
      if (had === undefined || compareVersions(version, had) > 0) newest.set(family, version);
    }
  }
  return newest;
}
