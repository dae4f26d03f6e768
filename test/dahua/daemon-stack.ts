import { polledDaemonStack } from '../helpers/polled-daemon-stack.js';
import { PASSWORD, ZONE } from './helpers.js';

/**
 * An HRMS simulator and a config for `punchgate run` with one Dahua terminal `front-door` on
 * 127.0.0.1:`port` (polled every second unless told otherwise, the device at +05:30), in a temp folder.
 */
export async function dahuaDaemonStack(port: number, terminal: Record<string, unknown> = {}) {
  const stack = await polledDaemonStack({
    tmpPrefix: 'punchgate-dahua-daemon-',
    token: 'dahua-stack-token',
    site: 'plant-d',
    name: 'front-door',
    password: PASSWORD,
    terminal: { kind: 'dahua', host: '127.0.0.1', port, timezone: ZONE, pageSize: 100, ...terminal },
  });
  /** The journalled cursor (read while no daemon runs). */
  const cursor = (serial: string) => stack.sourceState<{ recNo?: number; time?: number }>(`records:${serial}`);
  return { ...stack, cursor };
}
