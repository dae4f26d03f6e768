/**
 * The user commands that write terminals (sync-users, restore-user, copy-templates) under Ctrl-C
 * and SIGTERM. Dying at once would leave a ZK terminal disabled ("working", no punches taken)
 * until someone ran the command again; so the first signal only asks the command to stop after
 * the write in progress (it then enables the terminals and reports what they hold), and a second
 * one ends the process at once for an admin who insists.
 */
import { EXIT } from '../util/exit-codes.js';
import { handleSignals } from '../util/signals.js';

export async function interruptible<T>(
  err: { write(s: string): unknown },
  fn: (stop: AbortSignal) => Promise<T>,
  exit: (code: number) => void = (code) => process.exit(code),
): Promise<T> {
  const controller = new AbortController();
  const dispose = handleSignals({
    stop: (_signal, count) => {
      if (count === 1) {
        controller.abort();
        err.write(
          'punchgate: interrupted: the write in progress ends, the rest is not attempted and the terminals are enabled again (interrupt again to stop at once: a ZK terminal may then stay "working" until the command is run again)\n',
        );
        return;
      }
      err.write('punchgate: stopped at once: run the command again, or a ZK terminal may stay "working"\n');
      exit(EXIT.TEMPFAIL);
    },
  });
  try {
    return await fn(controller.signal);
  } finally {
    dispose();
  }
}
