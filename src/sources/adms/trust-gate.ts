import type { IncomingHttpHeaders } from 'node:http';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { allowed, type PushTerminal } from './directory.js';
import type { RegistrationBook } from './handler-kit.js';
import { LogBudget } from './log-budget.js';
import { cookieToken, sameSecret, sessionToken } from './security.js';

/**
 * Who may change a push terminal's state (issue 30): the one gate every request of a configured
 * serial passes before any handler runs. A request the gate does not admit reaches no handler,
 * so it stores nothing (punches, users, kept uploads, counts), switches no protocol, is handed no
 * secret (RegistryCode, SessionID), moves no stamp, takes or settles no command and counts as no
 * contact; it is answered "refused" (the sender keeps its data, as a real terminal does on any
 * refusal) and only counted, alerted and logged (bounded).
 *
 * The rule, by what the terminal's trusted address is:
 * - none yet (a new terminal, or one the admin re-pointed): the first address it pushes from is
 *   trusted (trust on first use);
 * - outside the terminal's `allowFrom` (the admin moved it): as none, so the first request from
 *   inside `allowFrom` is trusted;
 * - this address: admitted;
 * - another address: admitted only with a valid Security PUSH token (`Cookie: token=`, which only
 *   the device registered here can compute), and then the trust moves there, said in the log. An
 *   attendance-protocol terminal has no such secret: its address moves only by the admin's word
 *   (`allowFrom` naming its new address, and a reload). Never by the trusted address's silence:
 *   a terminal switched off for the night must not hand its serial to whoever calls next.
 */
export type Admission =
  | { kind: 'trusted' }
  /** From another address than the trusted one: refused, counted. */
  | { kind: 'stranger'; trustedAddress: string }
  /** The journal cannot be read now: nobody is admitted, the sender retries. */
  | { kind: 'retry' };

/** Log lines about strangers, per terminal: at most 5 in 10 minutes (a flood stays a few lines). */
const STRANGER_LOG = { max: 5, windowMs: 10 * 60_000 };

export class TrustGate {
  private readonly logged = new WeakMap<PushTerminal['cfg'], LogBudget>();

  constructor(
    private readonly registrations: RegistrationBook,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  admit(t: PushTerminal, address: string, headers: IncomingHttpHeaders): Admission {
    const now = this.clock.now();
    let reg;
    try {
      reg = this.registrations.get(t);
    } catch {
      return { kind: 'retry' };
    }
    const trusted = reg?.trustedAddress && allowed(t.allow, reg.trustedAddress) ? reg.trustedAddress : null;
    if (trusted === address) return { kind: 'trusted' };
    if (trusted === null) {
      if (reg?.trustedAddress)
        this.logger.warn(
          { terminal: t.cfg.name, serial: t.cfg.serial, address, was: reg.trustedAddress },
          `terminal SN=${t.cfg.serial} (${t.cfg.name}) is trusted at ${address} from now on: its allowFrom no longer includes ${reg.trustedAddress}`,
        );
      // Written at once (once per terminal, or per move): a daemon killed a second later must
      // not let whoever calls first after the restart be trusted instead.
      try {
        this.registrations.save(t, {
          protocol: reg?.protocol ?? 'attendance',
          trustedAddress: address,
          trustedAt: now,
        });
      } catch (e) {
        this.logger.warn(
          { terminal: t.cfg.name, address, err: e instanceof Error ? e.message : String(e) },
          "cannot record the terminal's address now (journal busy?): asked to retry",
        );
        return { kind: 'retry' };
      }
      return { kind: 'trusted' };
    }
    const token = cookieToken(headers.cookie);
    if (
      reg?.protocol === 'security' &&
      reg.registryCode &&
      reg.sessionId &&
      sameSecret(token, sessionToken(reg.registryCode, t.cfg.serial, reg.sessionId))
    ) {
      try {
        this.registrations.save(t, { protocol: reg.protocol, trustedAddress: address, trustedAt: now });
      } catch {
        return { kind: 'retry' };
      }
      this.logger.warn(
        { terminal: t.cfg.name, serial: t.cfg.serial, address, was: trusted },
        `terminal SN=${t.cfg.serial} (${t.cfg.name}) now pushes from ${address} (was ${trusted}), with its Security PUSH token: trusted at its new address`,
      );
      return { kind: 'trusted' };
    }
    this.registrations.remember(t, {
      otherAddress: withOtherAddress(
        // A sighting from before the trust last moved is history: the list starts again.
        (reg?.otherLastAt ?? 0) > (reg?.trustedAt ?? 0) ? reg?.otherAddress : null,
        address,
      ),
      otherCount: (reg?.otherLastAt ?? 0) > (reg?.trustedAt ?? 0) ? (reg?.otherCount ?? 0) + 1 : 1,
      otherLastAt: now,
    });
    const budget = this.logged.get(t.cfg) ?? new LogBudget(STRANGER_LOG.max, STRANGER_LOG.windowMs);
    this.logged.set(t.cfg, budget);
    const held = budget.take(now);
    if (held !== undefined)
      this.logger.warn(
        { terminal: t.cfg.name, serial: t.cfg.serial, address, trusted, ...(held > 0 ? { notLogged: held } : {}) },
        `terminal SN=${t.cfg.serial} (${t.cfg.name}) pushes from ${trusted}, but ${address} sent a request with its serial: refused, nothing changed; if the terminal itself moved to ${address}, set allowFrom: [${address}] for ${t.cfg.name} and reload`,
      );
    return { kind: 'stranger', trustedAddress: trusted };
  }
}

/** Other addresses kept by name at most; more are one `+` (the alert says "and more"). */
const OTHER_ADDRESSES_NAMED = 3;

/**
 * The addresses seen sending with a terminal's serial, as kept (`a,b,c` and `+` for more): the
 * first ones stay, so that a stranger cannot make the alert name an address of its choosing by
 * sending last (found by an adversarial trial: the alert named only the last address, and told
 * the admin to trust it).
 */
export function withOtherAddress(kept: string | null | undefined, address: string): string {
  const parts = (kept ?? '').split(',').filter(Boolean);
  if (parts.includes(address)) return parts.join(',');
  const named = parts.filter((p) => p !== '+');
  if (named.length < OTHER_ADDRESSES_NAMED) return [...named, address, ...(parts.includes('+') ? ['+'] : [])].join(',');
  return [...named, '+'].join(',');
}

/** The kept list read back: the addresses named, and whether there were more. */
export function otherAddressesOf(kept: string): { addresses: string[]; more: boolean } {
  const parts = kept.split(',').filter(Boolean);
  return { addresses: parts.filter((p) => p !== '+'), more: parts.includes('+') };
}
