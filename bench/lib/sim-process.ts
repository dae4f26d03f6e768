import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A simulator of the built CLI (`punchgate sim ...`) in its own process, so that its work does not
 * share the bench's event loop. Resolves with the URL it prints ("... listening on <url>").
 */
export async function startSimProcess(args: readonly string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['dist/punchgate.js', 'sim', ...args], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // The simulator goes when the bench goes, even when it stops on an error.
  const orphan = () => child.kill('SIGTERM');
  process.once('exit', orphan);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`punchgate sim ${args[0]} exited with ${code}: ${out.trim()}`)));
  });
  return {
    url,
    stop: async () => {
      process.off('exit', orphan);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
