import { existsSync } from 'node:fs';
import { unixDgramAvailable, type UnixDgramModule } from '../daemon/sd-notify.js';
import { fail, pass, warn, type CheckResult } from './types.js';

export interface NotifyCheckDeps {
  load?: () => UnixDgramModule;
  /** Whether this box runs systemd (sd_booted: /run/systemd/system exists). */
  systemdBooted?: () => boolean;
}

/**
 * Can `punchgate run` tell systemd it is ready? Without the optional module unix-dgram a
 * Type=notify unit never sees READY=1 and systemd kills the start after its timeout.
 */
export function checkNotify(deps: NotifyCheckDeps = {}): CheckResult {
  const available = unixDgramAvailable(deps.load);
  if (available.ok) return pass('systemd notify', 'unix-dgram loads: readiness and watchdog reach systemd');
  const booted = (deps.systemdBooted ?? (() => existsSync('/run/systemd/system')))();
  const detail = `the optional module unix-dgram does not load (${available.error})`;
  const fix =
    'install build tools (apt-get install build-essential python3) and install punchgate again, so that unix-dgram is built';
  if (booted)
    return fail('systemd notify', `${detail}: under systemd (Type=notify) the service would never report ready`, fix);
  return warn('systemd notify', `${detail}; needed only under systemd`, fix);
}
