import { polledDaemonStack } from '../helpers/polled-daemon-stack.js';
import { PASSWORD, ZONE } from './helpers.js';

/** An HRMS simulator and a config for `punchgate run` reading the BioTime server at `url` every second. */
export async function bioDaemonStack(url: string, terminal: Record<string, unknown> = {}) {
  const stack = await polledDaemonStack({
    tmpPrefix: 'punchgate-bio-daemon-',
    token: 'bio-stack-token',
    site: 'plant-b',
    name: 'hq',
    password: PASSWORD,
    terminal: { kind: 'biotime', baseUrl: url, timezone: ZONE, pageSize: 200, ...terminal },
  });
  /** The journalled cursor id (read while no daemon runs). */
  const cursor = (): number | undefined => stack.sourceState<{ id?: number }>('cursor')?.id;
  return { ...stack, cursor };
}
