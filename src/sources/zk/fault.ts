import type { ZkTerminalConfig } from '../../config/terminals.js';
import type { TerminalFault } from '../poll-outcome.js';
import {
  ZkAuthError,
  ZkChunkNotWholeError,
  ZkConnectionError,
  ZkDownloadRefusedError,
  ZkProtocolError,
  ZkTimeoutError,
  ZkUnauthorizedError,
} from './client/index.js';
import { CMD, ZkConnectRefusedError } from './protocol/index.js';

/**
 * What went wrong reaching a ZK terminal, for a site admin: `key` names the terminal in the
 * config (`terminals[2]`), so that the fix says which setting to look at. The protocol detail
 * (the command, the error code) is not in it: callers log that at debug.
 */
export function describeZkFault(
  e: unknown,
  cfg: ZkTerminalConfig,
  key: string,
  peer = `${cfg.host}:${cfg.port}`,
): TerminalFault {
  const pushFix = `let the terminal push its punches instead: add it as kind: adms with its serial number, and set its Cloud Server Setting to this box's adms.listen address (docs/terminals-push.md)`;
  const commKeyFix = `set ${key}.commKey to the Comm Key in the terminal's communication settings (0 when none is set there)`;
  if (e instanceof ZkConnectRefusedError)
    return {
      // Begins with the terminal's name: only the admin can fix it, so the status says it at once.
      cause: `${cfg.name} (${peer}) answered the ZK connect with code ${e.connectReply} and refused the comm key login: its firmware (2025 and later, e.g. MB10-VL, MB460 Plus, SenseFace 3A) does not let punchgate read its log over port 4370, and what it expects instead is not published; its punches wait on the terminal`,
      fix: `${pushFix}; if it has a Comm Key, check that ${key}.commKey matches it`,
    };
  if (e instanceof ZkDownloadRefusedError) {
    // It is a ZK terminal (it opened the session and answered before): "not as a ZK terminal does"
    // sent the admin to check a host and port that were right.
    const refused = `${cfg.name} (${peer}) answers as a ZK terminal but refused to hand over its`;
    // The user list (and fingerprints) are read to name the users of 8-byte logs and to back up users.
    if (e.readCommand !== CMD.ATTLOG_RRQ)
      return {
        cause: `${refused} ${e.readCommand === CMD.USERTEMP_RRQ ? 'user list' : 'fingerprint templates'} (answered code ${e.replyCode}); nothing is lost, its punches wait on the terminal`,
        fix: pushFix,
      };
    return {
      cause: `${refused} attendance log (answered code ${e.replyCode}): its firmware does not let punchgate read the log over port ${cfg.port} (push-only firmware such as SpeedFace-H5L ZAM180 Ver 3.3.x does so); nothing is lost, its punches wait on the terminal`,
      fix: pushFix,
    };
  }
  // With realtime on, punchgate's own real-time connection may be what holds a terminal's only
  // session (a new-user trial: punches flowed in real time while every poll was refused).
  const ownSession =
    'realtime' in cfg && cfg.realtime
      ? `; if its punches still arrive in real time, the terminal takes one session and punchgate's real-time connection holds it: set ${key}.realtime: false`
      : '';
  if (e instanceof ZkUnauthorizedError)
    // Said as "comm key refused" before, with the comm key to check, although the terminal had
    // accepted the session (and its login, when it asked for one): no key was refused.
    return {
      cause: `${peer} accepted punchgate's session, then answered "not authorized" to a request: the terminal ended the session (another program connected to it, or it restarted); nothing is lost, its punches wait on the terminal`,
      fix: `check that no other program talks to the terminal at the same time (attendance software, another gateway)${ownSession}; if it keeps happening, restart the terminal`,
    };
  if (e instanceof ZkAuthError) {
    if (/requires a comm key/.test(e.message))
      return { cause: `${peer} requires a comm key and none is configured`, fix: commKeyFix };
    return { cause: `comm key refused by ${peer}`, fix: commKeyFix };
  }
  const seconds = `${Math.round(cfg.timeoutMs / 100) / 10} s`;
  const reachFix = `check the cable/power, the IP address (${key}.host), and that nothing else holds the terminal's single TCP session${ownSession}`;
  const notZkFix = `check that ${key}.host and ${key}.port point at the terminal, and try ${key}.transport: tcp or udp`;
  if (e instanceof ZkTimeoutError && e.foreign > 0)
    // Answers came for punchgate's request, but in another session's name: not taken (a device
    // forging the terminal's address would have its made-up punches journalled).
    return {
      cause: `no answer from ${peer} within ${seconds}; ${e.foreign === 1 ? '1 reply' : `${e.foreign} replies`} came in its name from another session and ${e.foreign === 1 ? 'was' : 'were'} not taken: another device on the network answering as the terminal (its address forged)?`,
      fix: `find the device answering in the terminal's name (nothing it sent was journalled); if there is none, the terminal's firmware names its session its own way: restart the terminal, and report its firmware version (its menu, System Info) with a capture of the traffic`,
    };
  if (e instanceof ZkTimeoutError && e.strays > 0)
    // It answered, just never this request: the cable is fine (an adversarial trial was told to check it).
    return {
      cause: `${peer} answered within ${seconds}, but never to punchgate's request (${e.strays} packet${e.strays === 1 ? '' : 's'} numbered for another request)`,
      fix: `check that no other program talks to the terminal at the same time (attendance software, another gateway); if none does, its firmware numbers its replies its own way: try ${key}.transport: ${cfg.transport === 'udp' ? 'tcp' : cfg.transport === 'tcp' ? 'udp' : 'tcp or udp'}`,
    };
  if (e instanceof ZkTimeoutError && e.noise > 0)
    // It sends plenty, none of it ZK (another service on the port, a device that took the address):
    // no cable to check (an adversarial trial's 64 kB bursts were said as "no answer").
    return {
      cause: `${peer} answered, but not as a ZK terminal does (${e.noise} bytes within ${seconds}, none a ZK packet)`,
      fix: notZkFix,
    };
  if (e instanceof ZkTimeoutError && e.partWay)
    // It answered, then stopped in the middle of that answer (a stalled download): "no answer" sent
    // the admin to the cable and the IP address of a terminal that had just sent part of its log.
    return {
      cause: `${peer} stopped part-way through an answer and sent nothing more within ${seconds}`,
      fix: `check the network between this box and the terminal (a link that drops out, Wi-Fi); if the terminal pauses while it sends its log, raise ${key}.timeoutMs; nothing is lost, the log is read again at the next poll`,
    };
  if (e instanceof ZkTimeoutError) return { cause: `no answer from ${peer} within ${seconds}`, fix: reachFix };
  if (e instanceof ZkConnectionError) {
    const code = e.code ?? '';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      return {
        cause: `cannot resolve the host name ${cfg.host} (${code})`,
        fix: `check ${key}.host; a fixed IP address is safest for a terminal`,
      };
    if (code === 'ECONNREFUSED')
      return {
        cause: `${peer} refused the connection`,
        // Over UDP a refusal is the box's word that nothing listens on that port: no session is held.
        fix:
          cfg.transport === 'udp'
            ? `check ${key}.host and ${key}.port (4370 unless changed on the terminal), and that the terminal takes ZK over UDP; if not, set ${key}.transport: tcp`
            : `check ${key}.host and ${key}.port (4370 unless changed on the terminal), and that nothing else holds the terminal's single TCP session${ownSession}`,
      };
    if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
      return { cause: `no route to ${peer} (${code})`, fix: reachFix };
    if (code === 'ECONNRESET' || /closed/.test(e.message))
      return { cause: `${peer} closed the connection`, fix: reachFix };
    return { cause: `no answer from ${peer}${code ? ` (${code})` : ''}`, fix: reachFix };
  }
  if (e instanceof ZkChunkNotWholeError)
    // A ZK terminal on a link that loses data (UDP over Wi-Fi): not "no ZK terminal", whose fix
    // (check host and port) sent the admin to settings that were right.
    return {
      cause: `${peer} answered, but a piece of its log did not come whole at ${e.tries} tries: data lost on the way`,
      fix:
        cfg.transport === 'tcp'
          ? `check the network between this box and the terminal; nothing is lost, the log is read again at the next poll`
          : `check the network between this box and the terminal (Wi-Fi, a busy switch), or set ${key}.transport: tcp if the terminal takes TCP; nothing is lost, the log is read again at the next poll`,
    };
  if (e instanceof ZkProtocolError) return { cause: `${peer} answered, but not as a ZK terminal does`, fix: notZkFix };
  return { cause: `${peer}: ${e instanceof Error ? e.message : String(e)}`, fix: reachFix };
}
