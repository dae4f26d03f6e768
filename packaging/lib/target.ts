/**
 * The two architectures the packages are built for, as Debian, Node.js and the GNU toolchain
 * name them. The build runs on an amd64 Debian machine: amd64 is built with the machine's own
 * compiler, arm64 with Debian's cross compiler (g++-aarch64-linux-gnu) and checked under
 * qemu-user (qemu-user-static, with the cross C library of libc6-dev-arm64-cross).
 */
export type DebArch = 'amd64' | 'arm64';

export const ARCHES: readonly DebArch[] = ['amd64', 'arm64'];

export interface Target {
  /** Debian's name: the .deb's Architecture and file name, the tarball's name. */
  deb: DebArch;
  /** Node's name (process.arch, node-gyp's --arch, the serialport prebuild folder). */
  node: 'x64' | 'arm64';
  /** The GNU triplet: the toolchain's prefix and the cross C library's folder. */
  triplet: string;
  /** `uname -m` on such a box (what the tarball's install.sh compares). */
  machine: string;
  /** A binutils or compiler program for this architecture (strip, objdump, g++). */
  tool(name: string): string;
  /** Environment for node-gyp: the compilers, archiver and linker for this architecture. */
  compilerEnv(): Record<string, string>;
  /** The command prefix that runs one of its programs on the build machine (qemu-user for arm64). */
  runPrefix(): string[];
}

const NATIVE = 'x86_64-linux-gnu';

function target(deb: DebArch): Target {
  const triplet = deb === 'amd64' ? NATIVE : 'aarch64-linux-gnu';
  const cross = triplet !== NATIVE;
  const tool = (name: string) => (cross ? `${triplet}-${name}` : name);
  return {
    deb,
    node: deb === 'amd64' ? 'x64' : 'arm64',
    triplet,
    machine: deb === 'amd64' ? 'x86_64' : 'aarch64',
    tool,
    compilerEnv: (): Record<string, string> =>
      cross
        ? {
            CC: tool('gcc'),
            CXX: tool('g++'),
            // gcc-ar: better-sqlite3 compiles SQLite with -flto; the archiver must load the LTO plugin.
            AR: tool('gcc-ar'),
            LINK: tool('g++'),
            // Tools node-gyp's make runs on the build machine itself.
            CC_host: 'gcc',
            CXX_host: 'g++',
            AR_host: 'ar',
            LINK_host: 'g++',
          }
        : {},
    runPrefix: () => (cross ? ['qemu-aarch64-static', '-L', `/usr/${triplet}`] : []),
  };
}

export function targetOf(deb: string): Target {
  if (deb !== 'amd64' && deb !== 'arm64') throw new Error(`unknown architecture ${deb}: amd64 or arm64`);
  return target(deb);
}
