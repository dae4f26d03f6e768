import type { AdmsConfig } from '../config/adms.js';
import type { HikvisionTerminalConfig } from '../config/terminals.js';
import {
  readListenContact,
  readListenRefusals,
  type ListenContact,
  type ListenRefusals,
} from '../sources/hikvision/listen-state.js';
import { listenPath } from '../sources/listen.js';
import { localTime } from '../util/local-time.js';
import { readSourceStates } from './ledger.js';
import { pass, warn, type CheckResult } from './types.js';

export interface ListenState {
  contact?: ListenContact;
  refusals?: ListenRefusals;
}

/** A terminal that has not posted for this long is said (events come only when people punch). */
const QUIET_MS = 24 * 3_600_000;

/** What the daemon recorded of the listening Hikvision terminals (none when there is no journal yet). */
export function readListenStates(journalPath: string, terminals: readonly string[]): Map<string, ListenState> {
  return readSourceStates(journalPath, terminals, (state, t) => ({
    contact: readListenContact(state, t),
    refusals: readListenRefusals(state, t),
  }));
}

/** `terminal gate-1 (HTTP Listening)`: has the terminal posted lately, and did anyone else post for it. */
export function checkHikvisionListen(
  cfg: HikvisionTerminalConfig,
  index: number,
  adms: AdmsConfig | undefined,
  s: ListenState | undefined,
  now: number,
): CheckResult {
  const name = `terminal ${cfg.name} (HTTP Listening)`;
  const where = `${adms?.listen ?? 'adms.listen'} ${listenPath('hikvision', cfg.name)}`;
  const setUp = `punchgate terminals listen ${cfg.name} (or set it by hand: punchgate terminals listen ${cfg.name} --print), and open the port of adms.listen to the terminal`;
  const r = s?.refusals;
  if (r?.mac && now - r.lastAt < QUIET_MS)
    return warn(
      name,
      `${r.count} post(s) came from its address ${r.address} with the MAC address ${r.mac}, not the terminal's (last at ${localTime(r.lastAt)}): refused, nothing kept`,
      `if the terminal was replaced, poll it (punchgate poll --terminal ${cfg.name}) so punchgate learns the new one`,
    );
  if (r && now - r.lastAt < QUIET_MS)
    return warn(
      name,
      `${r.count} post(s) to its path came from ${r.address} (last at ${localTime(r.lastAt)}), not from the terminal's address: refused, nothing kept`,
      `if the terminal itself moved to ${r.address}, set terminals[${index}].allowFrom: [${r.address}] and reload; else find the device at ${r.address}`,
    );
  const last = s?.contact?.lastPostAt;
  if (last === undefined)
    return warn(name, `the terminal has not posted to ${where} yet (the poll still reads its events)`, setUp);
  if (now - last > QUIET_MS)
    return warn(
      name,
      `the terminal last posted at ${localTime(last)} (the poll still reads its events)`,
      `if people punched since, check its HTTP Listening setting (${setUp}); some firmware stops posting after a reboot`,
    );
  return pass(name, `the terminal posts its events to ${where}; last post at ${localTime(last)}`);
}
