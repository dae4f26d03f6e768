import { readFileSync, statSync } from 'node:fs';
import type { SerialTerminalConfig } from '../config/terminals.js';
import { openSerialPort, type OpenSerialLink } from '../sources/serial/port.js';
import { errorCode, errorText, fail, pass, warn, type CheckResult } from './types.js';

const OPEN_TIMEOUT_MS = 5000;

/** The device exists and this user can open it (opened with the terminal's settings, then closed). */
export async function checkSerialTerminal(
  cfg: SerialTerminalConfig,
  index: number,
  open: OpenSerialLink = openSerialPort,
): Promise<CheckResult> {
  const name = `terminal ${cfg.name}`;
  const key = `terminals[${index}]`;
  let owner = '';
  try {
    const st = statSync(cfg.path);
    if (!st.isCharacterDevice()) {
      return fail(
        name,
        `${cfg.path} is not a serial device`,
        `set ${key}.path to the adapter, e.g. a /dev/serial/by-id/... path (ls -l /dev/serial/by-id/)`,
      );
    }
    owner = `group ${groupName(st.gid)}, mode ${(st.mode & 0o777).toString(8)}`;
  } catch (e) {
    if (errorCode(e) === 'ENOENT') {
      return fail(
        name,
        `no such device ${cfg.path}`,
        `plug in the adapter and check that it appears (ls -l /dev/serial/by-id/); prefer that stable by-id path in ${key}.path`,
      );
    }
    return fail(name, `${cfg.path}: ${errorText(e)}`, `check ${key}.path`);
  }

  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`open did not finish within ${OPEN_TIMEOUT_MS / 1000} s`)),
        OPEN_TIMEOUT_MS,
      );
    });
    const link = await Promise.race([open(cfg, { onData: () => {}, onClose: () => {} }), timeout]);
    await link.close();
    return pass(name, `${cfg.path} opens at ${cfg.baudRate} baud (${owner})`);
  } catch (e) {
    const text = errorText(e);
    if (/EACCES|Permission denied/i.test(text)) {
      return fail(
        name,
        `permission denied opening ${cfg.path} (${owner})`,
        "the user running punchgate must be in the device's group (dialout on Debian/Ubuntu): the systemd unit has SupplementaryGroups=dialout; for commands run by hand use sudo, or usermod -aG dialout <user> and log in again; in Docker add --group-add dialout",
      );
    }
    if (/Cannot lock port|Resource temporarily unavailable|EBUSY|EAGAIN/i.test(text)) {
      return warn(
        name,
        `${cfg.path} exists but is in use by another program (punchgate run holds it while it runs)`,
        'nothing to do if punchgate run is running; otherwise find the holder with: fuser -v ' + cfg.path,
      );
    }
    if (/ENOTTY|Inappropriate ioctl/i.test(text)) {
      return fail(
        name,
        `${cfg.path} is not a serial device`,
        `set ${key}.path to the adapter (ls -l /dev/serial/by-id/)`,
      );
    }
    return fail(
      name,
      `cannot open ${cfg.path}: ${text}`,
      `check the adapter and ${key}.path, baudRate, dataBits, parity and stopBits`,
    );
  } finally {
    clearTimeout(timer);
  }
}

function groupName(gid: number): string {
  try {
    for (const line of readFileSync('/etc/group', 'utf8').split('\n')) {
      const [nameField, , id] = line.split(':');
      if (nameField && Number(id) === gid) return nameField;
    }
  } catch {
    // no /etc/group: show the number
  }
  return String(gid);
}
