import type { TerminalConfig } from '../config/terminals.js';

/** How long the journal's known devices are trusted before they are read again. */
const REREAD_AFTER_MS = 60_000;

/**
 * The configured terminal a punch's terminal name now stands for, when that name is no longer in
 * the config but the same device is: a terminal renamed (gate-1 to gate-a, its serial kept) while
 * punches journalled under the old name were still owed. Their zone and direction are the device's,
 * as the config now describes it; with the old name looked up they fell back to the box's zone.
 * `knownDevices` is the journal's (terminal name -> device serial); it is read again at most once
 * a minute, and only when a name is not in the config.
 */
export function renamedTerminals(
  terminals: readonly TerminalConfig[],
  knownDevices: () => ReadonlyMap<string, string>,
  now: () => number,
): (terminal: string) => string | undefined {
  const configured = new Set(terminals.map((t) => t.name));
  let readAt = -Infinity;
  let byOldName = new Map<string, string>();
  const reread = () => {
    const known = knownDevices();
    const current = new Map<string, string>();
    for (const t of terminals) {
      const device = known.get(t.name) ?? ('serial' in t && typeof t.serial === 'string' ? t.serial : undefined);
      if (device) current.set(device.toUpperCase(), t.name);
    }
    byOldName = new Map();
    for (const [name, device] of known) {
      const target = current.get(device.toUpperCase());
      if (!configured.has(name) && target !== undefined) byOldName.set(name, target);
    }
  };
  return (terminal) => {
    if (configured.has(terminal)) return undefined;
    if (!byOldName.has(terminal) && now() - readAt >= REREAD_AFTER_MS) {
      readAt = now();
      reread();
    }
    return byOldName.get(terminal);
  };
}
