import type { SerialTerminalConfig } from '../../config/terminals.js';
import type { TerminalFault } from '../poll-outcome.js';

/**
 * A serial reader's trouble in words (the same as `punchgate check` says): `error` is what the
 * port reported, `key` names the terminal in the config (`terminals[2]`).
 */
export function describeSerialFault(error: string, cfg: SerialTerminalConfig, key: string): TerminalFault {
  if (/ENOENT|No such file|cannot open.*not found/i.test(error))
    return {
      cause: `no such device ${cfg.path} (the adapter is unplugged, or its name changed)`,
      fix: `plug in the adapter and check that it appears (ls -l /dev/serial/by-id/); prefer that stable by-id path in ${key}.path`,
    };
  if (/EACCES|Permission denied/i.test(error))
    return {
      cause: `permission denied opening ${cfg.path}`,
      fix: "the user running punchgate must be in the device's group (dialout on Debian/Ubuntu): the systemd unit has SupplementaryGroups=dialout; by hand: usermod -aG dialout <user> and log in again",
    };
  if (/Cannot lock port|Resource temporarily unavailable|EBUSY|EAGAIN/i.test(error))
    return {
      cause: `${cfg.path} is in use by another program`,
      fix: `find the holder with: fuser -v ${cfg.path}, and end it`,
    };
  // A folder (a path one level short, such as /dev/serial/by-id): the status said to check the
  // baud rate and parity, which have nothing to do with it (found by a trial).
  if (/ENOTTY|Inappropriate ioctl|EISDIR|Is a directory/i.test(error))
    return {
      cause: `${cfg.path} is not a serial device`,
      fix: `set ${key}.path to the adapter (ls -l /dev/serial/by-id/)`,
    };
  if (/closed|disconnected|went away|EIO/i.test(error))
    return {
      cause: `the serial reader at ${cfg.path} went away (${error})`,
      fix: 'check its cable and adapter; punchgate reopens it by itself, and lines sent meanwhile are lost only if the reader does not keep them',
    };
  return {
    cause: `${cfg.path}: ${error}`,
    fix: `check the adapter and ${key}.path, baudRate, dataBits, parity and stopBits`,
  };
}
