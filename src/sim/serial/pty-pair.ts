import { spawn } from 'node:child_process';
import { existsSync, lstatSync, unlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A pseudo-terminal pair made by socat: `devicePath` is what a serial terminal config
 * points at, `peerPath` is the other end the simulator writes to. Killing socat makes both
 * links disappear, which is what unplugging a USB-serial adapter looks like to the reader.
 */
export interface PtyPair {
  /** The "device": point a `kind: serial` terminal at it. */
  readonly devicePath: string;
  /** The far end: bytes written here arrive at the device. */
  readonly peerPath: string;
  readonly pid: number;
  /** Resolves when socat has ended (exit code, or null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** With `waitForReader`: resolves once a reader has opened the device and the peer exists. */
  waitForPeer(timeoutMs?: number): Promise<void>;
  /** Ends socat (SIGTERM, so it removes its links) and waits for it. */
  close(): Promise<void>;
  /**
   * Whether socat ended on a stop signal that did not come from close(): a SIGTERM or Ctrl-C sent
   * to the whole process group reaches socat too, and may be seen before the simulator's own.
   */
  stoppedFromOutside(): boolean;
}

/** socat's exit codes after SIGHUP, SIGINT, SIGTERM. */
const STOP_EXITS = new Set([129, 130, 143]);

export interface PtyPairOptions {
  /**
   * Create the peer only once a reader has opened the device (socat `wait-slave`), so that
   * nothing is written before anyone listens. Without it, both ends exist on return.
   */
  waitForReader?: boolean;
  /** socat executable (default `socat` on PATH). */
  socat?: string;
  /** How long to wait for the links to appear (default 5 s). */
  timeoutMs?: number;
}

export class SocatMissingError extends Error {
  constructor(socat: string) {
    super(`cannot run ${socat}: socat is not installed (Debian/Ubuntu: apt-get install socat)`);
    this.name = 'SocatMissingError';
  }
}

/** Removes a link left behind by a socat that was killed hard; refuses to touch a real file. */
function removeStaleLink(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (!st.isSymbolicLink()) throw new Error(`${path} exists and is not a symbolic link; choose another --link path`);
  unlinkSync(path);
}

export async function createPtyPair(linkPath: string, opts: PtyPairOptions = {}): Promise<PtyPair> {
  const socat = opts.socat ?? 'socat';
  const devicePath = linkPath;
  const peerPath = `${linkPath}.sim`;
  removeStaleLink(devicePath);
  removeStaleLink(peerPath);

  const device = `pty,rawer,echo=0,link=${devicePath}${opts.waitForReader ? ',wait-slave,pty-interval=0.1' : ''}`;
  const peer = `pty,rawer,echo=0,link=${peerPath}`;
  // -t: when the reader closes the device, keep forwarding peer -> device (it may reopen).
  const child = spawn(socat, ['-d', '-d', '-t', '1000000', device, peer], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr.push(s);
    if (stderr.length > 20) stderr.shift();
  });

  let exitCode: number | null | undefined;
  let exitSignal: NodeJS.Signals | null = null;
  let closing = false;
  let spawnError: Error | undefined;
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      spawnError = e.code === 'ENOENT' ? new SocatMissingError(socat) : e;
      exitCode = null;
      resolve(null);
    });
    child.once('exit', (code, signal) => {
      exitSignal = signal;
      exitCode = code;
      resolve(code);
    });
  });

  const waitFor = async (paths: string[], timeoutMs: number | undefined) => {
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    while (!paths.every((p) => existsSync(p))) {
      if (spawnError) throw spawnError;
      if (exitCode !== undefined)
        throw new Error(`socat ended (code ${exitCode}): ${stderr.join('').trim().slice(-500)}`);
      if (Date.now() > deadline) throw new Error(`socat did not create ${paths.join(' and ')} within ${timeoutMs} ms`);
      await sleep(10);
    }
  };

  const close = async () => {
    closing = true;
    if (exitCode === undefined) {
      child.kill('SIGTERM');
      const hard = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(hard);
    }
    // After a SIGKILL socat leaves its links behind.
    for (const p of [devicePath, peerPath]) {
      try {
        if (lstatSync(p).isSymbolicLink() && !existsSync(p)) unlinkSync(p);
      } catch {
        // already gone
      }
    }
  };

  try {
    await waitFor(opts.waitForReader ? [devicePath] : [devicePath, peerPath], opts.timeoutMs ?? 5000);
  } catch (e) {
    await close();
    throw e;
  }
  return {
    devicePath,
    peerPath,
    pid: child.pid ?? -1,
    exited,
    waitForPeer: (timeoutMs) => waitFor([peerPath], timeoutMs),
    close,
    // socat traps SIGTERM/SIGINT/SIGHUP and exits 128 + the signal ("exiting on signal 15").
    stoppedFromOutside: () =>
      !closing &&
      (STOP_EXITS.has(exitCode ?? -1) || (exitSignal !== null && ['SIGTERM', 'SIGINT', 'SIGHUP'].includes(exitSignal))),
  };
}
