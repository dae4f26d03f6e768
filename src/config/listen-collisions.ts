import type { z } from 'zod';
import { DEFAULT_STATUS_LISTEN, listenersCollide, parseListen, type ListenAddress } from './listen.js';

/**
 * Every key of the config that makes punchgate run listen on a port, with what listens there. A
 * listener added to the config is added here, and is then checked against all the others.
 */
const LISTENERS: readonly { section: string; what: string; absent?: string }[] = [
  // Listens with the key absent too (its default); first, so that a collision with its default
  // is said at the other key, the one the file has (the check sees the config with defaults in).
  { section: 'status', what: 'the status page', absent: DEFAULT_STATUS_LISTEN },
  { section: 'adms', what: 'the push terminal receiver' },
];

/**
 * Two listeners of the config on one port that the system would not give to both (same port, and
 * the same address or a wildcard one): the second could never listen, and would say so every few
 * seconds while `check` found the port free (it is free until punchgate itself takes it). Run even
 * when other keys are wrong, like duplicates.ts, so it reads the config as written.
 */
export function checkListenCollisions(c: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const seen: { key: string; text: string; at: ListenAddress; absent?: string }[] = [];
  for (const l of LISTENERS) {
    const section = c[l.section];
    const value =
      typeof section === 'object' && section !== null ? (section as { listen?: unknown }).listen : undefined;
    const text = value ?? l.absent;
    if (typeof text !== 'string') continue;
    const at = parseListen(text);
    if (typeof at === 'string') continue;
    const key = `${l.section}.listen`;
    const other = seen.find((s) => listenersCollide(s.at, at));
    if (other) {
      const itsDefault = other.text === other.absent ? `, its default when not set` : '';
      ctx.addIssue({
        code: 'custom',
        path: [l.section, 'listen'],
        message:
          `expected a port of its own for ${l.what} (${key}), found ${text}, which ${other.key} ` +
          `(${other.text}${itsDefault}) takes already: give one of them another port`,
      });
    } else seen.push({ key, text, at, ...(l.absent ? { absent: l.absent } : {}) });
  }
}
