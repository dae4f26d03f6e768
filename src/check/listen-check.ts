import { connect } from 'node:net';
import { ALERT } from '../status/alert-words.js';
import type { ListenerStatus } from '../status/types.js';
import { fail, pass, warn, type CheckResult } from './types.js';

const CONNECT_TIMEOUT_MS = 2000;

export interface ListenerToCheck {
  /** The check's name: `adms receiver`, `status page`. */
  name: string;
  /** `push` (adms.listen) or `status` (status.listen). */
  listener: ListenerStatus['listener'];
  /** As the config says it: `0.0.0.0:8081`. */
  listen: string;
  host: string;
  port: number;
  /** What the running daemon says of this listener (its status.json); undefined when it does not say. */
  daemon: ListenerStatus | undefined;
  /** Whether `punchgate run` holds the journal lock now. */
  running: boolean;
}

/**
 * A port punchgate run listens on. While the daemon runs, its own word decides (a listener it
 * could not open is a failure with the reason). While it does not, something answering on the
 * port is another program, which will keep punchgate run from listening there: said now (a
 * failure for the push receiver, a warning for the status page), not a PASS that turns into
 * "address in use" in the log once the service starts.
 */
export async function checkListener(l: ListenerToCheck): Promise<CheckResult> {
  if (l.daemon && !l.daemon.up && l.daemon.downSince !== null) {
    const a = ALERT.listenerDown(l.daemon, { push: [], posting: [] });
    return fail(l.name, a.cause, a.fix);
  }
  const key = l.listener === 'push' ? 'adms.listen' : 'status.listen';
  // The daemon listens elsewhere than the config says: a reload cannot move the push receiver
  // (a restart does); the status page moves at the next reload.
  if (l.running && l.daemon?.up && l.daemon.listen !== l.listen) {
    const act = l.listener === 'push' ? 'restart' : 'reload';
    return warn(
      l.name,
      `listening on ${l.daemon.listen}, but ${key} in the config says ${l.listen}: it takes effect only after a ${act}`,
      `sudo systemctl ${act} punchgate`,
    );
  }
  if (l.running && l.daemon?.up) return pass(l.name, `listening on ${l.daemon.listen}`);
  const answers = await answersOn(l.host, l.port);
  if (l.running) {
    if (answers) return pass(l.name, `listening on ${l.listen}`);
    return warn(
      l.name,
      `nothing answers on ${l.listen} yet`,
      'punchgate run opens it at start and tries again while it cannot; its log says why (port in use, or below 1024)',
    );
  }
  // The receiver is how push terminals deliver: without it their punches wait on them, a failure.
  // The page is for people: a warning (punchgate run keeps trying the port and says so).
  if (answers)
    return (l.listener === 'push' ? fail : warn)(
      l.name,
      `another program answers on ${l.listen} while punchgate run is not running: punchgate run cannot listen there while it does${l.listener === 'push' ? ' (a ZKBioTime server also takes 8081)' : ''}`,
      `find it with sudo ss -ltnp 'sport = :${l.port}', then stop it or set ${key} to a free port${l.listener === 'push' ? " (and the terminals' Cloud Server port with it)" : ''}`,
    );
  return pass(l.name, `${l.listen} is free for punchgate run`);
}

/** Whether a TCP connection to host:port is accepted (an unspecified address is tried on loopback). */
function answersOn(host: string, port: number): Promise<boolean> {
  const to = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return new Promise<boolean>((resolve) => {
    const socket = connect({ host: to, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
