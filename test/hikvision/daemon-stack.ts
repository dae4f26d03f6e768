import { DEFAULT_HIK_SERIAL } from '../../src/sim/hikvision/index.js';
import { polledDaemonStack } from '../helpers/polled-daemon-stack.js';
import { PASSWORD } from './helpers.js';

/**
 * An HRMS simulator and a config for `punchgate run` with one Hikvision terminal `reception` at
 * `url` (polled every second, the alert stream on, the device at +05:30), in a temp folder.
 */
export async function hikDaemonStack(
  url: string,
  opts: { terminal?: Record<string, unknown>; password?: string; serial?: string } = {},
) {
  const stack = await polledDaemonStack({
    tmpPrefix: 'punchgate-hik-daemon-',
    token: 'hik-stack-token',
    site: 'plant-h',
    name: 'reception',
    password: opts.password ?? PASSWORD,
    terminal: { kind: 'hikvision', url, timezone: 'Asia/Kolkata', realtime: true, ...opts.terminal },
  });
  /** The journalled cursor (read while no daemon runs). */
  const cursor = (): number | undefined =>
    stack.sourceState<{ serialNo: number }>(`events:${opts.serial ?? DEFAULT_HIK_SERIAL}`)?.serialNo;
  return { ...stack, cursor };
}
