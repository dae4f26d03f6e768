import { errText, type ReceiverContext } from './handler-kit.js';
import type { PushTerminal } from './directory.js';
import { dialectOf, type PushDialect } from './options.js';

/**
 * Which dialect a push terminal is answered in (options.ts, PushDialect). Its handshake says it
 * (`pushver=`, or none); uploads do not, so the handshake's is kept with the terminal's
 * registration (in the journal: a terminal that handshook before a restart is answered alike
 * after it). The terminal's `pushDialect` setting wins over both.
 */
const FACT = 'PushDialect';

/** The dialect of a handshake, remembered for the uploads that follow (only a trusted request gets here: trust-gate.ts). */
export function handshakeDialect(ctx: ReceiverContext, t: PushTerminal, pushVersion: string | undefined): PushDialect {
  const configured = t.cfg.pushDialect;
  const said = dialectOf(pushVersion);
  try {
    const known = ctx.registrations.get(t);
    if (known?.facts[FACT] !== said) ctx.registrations.remember(t, { facts: { ...known?.facts, [FACT]: said } });
  } catch (e) {
    // Remembered at the next handshake; until then uploads get the answer of their configuration.
    ctx.logger.debug({ terminal: t.cfg.name, err: errText(e) }, 'cannot remember the push dialect now');
  }
  return configured ?? said;
}

/** The dialect an upload is answered in: configured, else the last handshake's, else the current one. */
export function uploadDialect(ctx: ReceiverContext, t: PushTerminal): PushDialect {
  if (t.cfg.pushDialect) return t.cfg.pushDialect;
  try {
    return ctx.registrations.get(t)?.facts[FACT] === '2.0.1' ? '2.0.1' : 'current';
  } catch {
    return 'current';
  }
}
