import type { AttendanceAnswer } from '../hrms/answer.js';
import { isStartCopy, tokenPickup } from '../hrms/token-pickup.js';
import type { DeliveryRecord } from '../journal/types.js';
import type { Clock } from '../util/clock.js';
import { stepSize } from '../util/clock-steps.js';
import type { Logger } from '../util/logger.js';

export interface DeliveryStateAccess {
  get(): DeliveryRecord;
  update(patch: Partial<DeliveryRecord>): void;
}

/** How the delivery state's lastError begins when no token could be read (the status tells it apart). */
export const NO_TOKEN = 'no usable HRMS token';

/**
 * How the delivery state's lastError begins when the sink's sender could not be built (a caFile
 * that is not there...): nothing can be sent until the config or the file is put right, so the
 * status says it at once, not after delivery.alertAfterMinutes (cannot-start.ts).
 */
export const CANNOT_START = 'cannot start delivery';

type Trouble = 'auth' | 'no-token' | 'request' | 'bad-reply' | 'transient';

/** How delivery's log and state name a sink's credential: the seed's token, Frappe's key and secret, Odoo's key. */
export interface CredentialWords {
  /** Who answers: "HRMS", "Frappe", "Odoo". */
  who: string;
  /** What it refused: "token", "API key and secret". */
  what: string;
  /** Where it is set (config.credentialPlace), when known. */
  place?: string;
}

/** The words for a sink of `kind` ('hrms', 'frappe', 'odoo'); `place`: where its credential is set. */
export function credentialWords(kind: string, place?: string): CredentialWords {
  const at = place ? { place } : {};
  if (kind === 'frappe') return { who: 'Frappe', what: 'API key and secret', ...at };
  if (kind === 'odoo') return { who: 'Odoo', what: 'API key', ...at };
  return { who: 'HRMS', what: 'token', ...at };
}

/**
 * "HRMS delivery to https://hr.example.com", "Odoo delivery to https://...": how every delivery log
 * line that speaks of the HRMS names it (`who`: credentialWords) and the address delivery calls
 * (addressShown: no query, no key), so an admin tells a wrong baseUrl from an HRMS that is down,
 * and one sink from another. Without an address: "HRMS delivery".
 */
export function deliveryTo(who: string, address: string | undefined): string {
  return `${who} delivery${address ? ` to ${address}` : ''}`;
}

/**
 * Whether the delivery state is as an answer of the HRMS left it (DeliveryHealth.answered: the
 * credential accepted, no error since), a punch taken or not: a batch it refused wholly is no
 * success, but an answer all the same (a pause waiting for the HRMS is over: deliverer.ts).
 */
export function answeredState(r: Pick<DeliveryRecord, 'auth' | 'lastError' | 'failingSince'>): boolean {
  return r.auth === 'ok' && r.lastError === null && r.failingSince === null;
}

/**
 * Since when a trouble lasts, kept from `since` (null: it starts now), but never after now. It is
 * a wall-clock time kept across restarts: a box clock stepped back (or set back while punchgate
 * was stopped) left it ahead of the box, and the "delivery failing" alert, which comes once
 * `now - since` passes delivery.alertAfterMinutes, stayed away for the step's length, a year for a
 * clock that was a year ahead, while the HRMS refused every batch (found by an adversarial trial).
 */
function sinceNoLaterThan(since: number | null, now: number): number {
  return since === null ? now : Math.min(since, now);
}

/**
 * Keeps the persisted delivery state (read by `status`) and decides what is worth a log line.
 * A problem is logged loudly once when it starts and once when it ends; the retries in between
 * go to debug, so a HRMS that is down for a weekend does not fill the disk.
 */
export class DeliveryHealth {
  private trouble: Trouble | undefined;
  private failures = 0;
  /** Written together with the batch's result: one state write per batch. */
  private attemptAt: number | null = null;
  /** The state of a batch whose settle is held (answered with hold): written with that settle (writeHeld). */
  private held: Partial<DeliveryRecord> | undefined;

  constructor(
    private readonly state: DeliveryStateAccess,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly credential: CredentialWords = credentialWords('hrms'),
    /** The address delivery calls, as shown (addressShown: no query, no key); named in every line (deliveryTo). */
    private readonly address?: string,
  ) {}

  /** Who answers, in the log's words ("HRMS", "Frappe", "Odoo"). */
  get who(): string {
    return this.credential.who;
  }

  /** "HRMS delivery to https://hr.example.com": the start of each line of this delivery's trouble (and its refusals: send-claimed.ts). */
  get delivery(): string {
    return deliveryTo(this.credential.who, this.address);
  }

  /** "HRMS refused the token", "Frappe refused the API key and secret": how the log and state say it. */
  get refusedWords(): string {
    return `${this.credential.who} refused the ${this.credential.what}`;
  }

  attempted(at: number): void {
    this.attemptAt = at;
  }

  /**
   * The HRMS answered (the token was accepted). `hold`: the batch's settle is held for the next
   * transaction, and this state is written in it too (writeHeld), not in a commit of its own.
   * `deliveredSome`: the HRMS took at least one punch (delivered, or had it already); a batch it
   * refused wholly is no success, so lastSuccessAt keeps the last batch that delivered something
   * (the status said "last success ... (1 sent: 1 rejected)" over a batch only refused).
   */
  answered(lastResult: string, hold = false, deliveredSome = true): void {
    const now = this.clock.now();
    const previous = this.state.get();
    if (this.trouble === 'auth' || this.trouble === 'no-token' || previous.auth === 'failed') {
      this.logger.info(`${this.delivery} resumed: ${this.credential.who} accepts the ${this.credential.what} again`);
    } else if (this.trouble) {
      this.logger.info({ failedAttempts: this.failures }, `${this.delivery} resumed: the HRMS answers again`);
    }
    this.trouble = undefined;
    this.failures = 0;
    // The error the last failure left no longer holds: kept, `status --json`, the page and the
    // status log went on saying "HTTP 503" hours after batches went through again (a trial).
    // What it was stays in the log, which said when it began and when delivery resumed.
    const cleared = { lastError: null, lastErrorAt: null };
    this.write(
      {
        auth: 'ok',
        authFailedSince: null,
        failingSince: null,
        ...(deliveredSome ? { lastSuccessAt: now } : {}),
        lastResult,
        ...cleared,
      },
      hold,
    );
  }

  /** The state held with a batch's settle, handed over to be written with it (state.update); undefined: none. */
  takeHeld(): Partial<DeliveryRecord> | undefined {
    const held = this.held;
    this.held = undefined;
    return held;
  }

  /** The credential was refused (`tokenFile`: the file it was read from, when the words name no place). */
  authFailed(message: string, lastResult: string, retryMs: number, tokenFile: string | undefined): void {
    const now = this.clock.now();
    const previous = this.state.get();
    const refused = this.refusedWords;
    // A sender whose words say the refusal already (Frappe's, Odoo's) is not said twice.
    const saysIt = message.toLowerCase().startsWith(refused.toLowerCase());
    const { what } = this.credential;
    const place = this.credential.place ?? tokenFile;
    this.note('auth', () =>
      this.logger.error(
        { retryInSeconds: Math.round(retryMs / 1000), ...(tokenFile ? { tokenFile } : {}) },
        `AUTH FAILED: ${this.delivery}: ${saysIt ? message : `${refused} (${message})`}. Delivery is paused, punches keep accumulating; ` +
          `no attempt is charged. Put a valid ${what} in place${place ? ` (${place})` : ''}; ${this.pickup(tokenFile)}.`,
      ),
    );
    this.write({
      auth: 'failed',
      authFailedSince: previous.auth === 'failed' ? sinceNoLaterThan(previous.authFailedSince, now) : now,
      failingSince: sinceNoLaterThan(previous.failingSince, now),
      lastError: saysIt ? message : `${refused}: ${message}`,
      lastErrorAt: now,
      lastResult,
    });
  }

  /** How a new credential takes effect: re-read, or (systemd's copy made at start) at a restart. */
  private pickup(tokenFile: string | undefined): string {
    // The file punchgate itself cannot read: systemd's copy is what it reads, made once at start.
    const copy = isStartCopy(tokenFile, process.env);
    return copy ? tokenPickup(true) : 'it is picked up without a restart';
  }

  /** No token could be read (none configured, or its file unusable): nothing was sent. */
  noToken(message: string, lastResult: string, retryMs: number): void {
    const now = this.clock.now();
    const previous = this.state.get();
    this.note('no-token', () =>
      this.logger.error(
        { retryInSeconds: Math.round(retryMs / 1000) },
        `${NO_TOKEN}: ${message}. Delivery is paused, punches keep accumulating; no attempt is charged.`,
      ),
    );
    this.write({
      auth: 'failed',
      authFailedSince: previous.auth === 'failed' ? sinceNoLaterThan(previous.authFailedSince, now) : now,
      failingSince: sinceNoLaterThan(previous.failingSince, now),
      lastError: `${NO_TOKEN}: ${message}`,
      lastErrorAt: now,
      lastResult,
    });
  }

  /**
   * The request did not reach the endpoint as it should (a redirect, 404, a proxy's 407, an error
   * page) or the HRMS refuses every request: a person must look. The message says what to check.
   */
  requestFailed(message: string, lastResult: string, retryMs: number): void {
    this.note('request', () =>
      this.logger.error(
        { retryInMs: retryMs },
        `${this.delivery}: request failed: ${message}. No punch is charged; delivery retries with backoff`,
      ),
    );
    this.failed(message, lastResult);
  }

  /** A 2xx answer that does not fit the batch: nothing it says is taken (or only its clear refusals). */
  badReply(message: string, lastResult: string, retryMs: number): void {
    this.note('bad-reply', () =>
      this.logger.warn(
        { retryInMs: retryMs },
        `${this.delivery}: answer not usable, will retry with backoff: ${message}`,
      ),
    );
    this.failed(message, lastResult);
  }

  /** A temporary failure of the whole request. */
  transient(message: string, lastResult: string, retryMs: number): void {
    this.note('transient', () =>
      // "in N s": the backoff's wait or the one the HRMS asked for (Retry-After), not always a backoff.
      this.logger.warn(
        { retryInMs: retryMs },
        `${this.delivery} failed, will retry in ${stepSize(retryMs)}: ${message}`,
      ),
    );
    this.failed(message, lastResult);
  }

  /** Not a failure (stopped on shutdown): only the summary changes. */
  stopped(lastResult: string): void {
    this.write({ lastResult });
  }

  /** A failure that is neither an answer nor a problem of its own (413, a split cut short). */
  failed(message: string, lastResult: string): void {
    const now = this.clock.now();
    // Since when delivery fails (kept across restarts): the alert comes after delivery.alertAfterMinutes.
    const previous = this.state.get();
    const failingSince = sinceNoLaterThan(previous.failingSince, now);
    // The last answer was no refusal of the credential: a status still saying "refuses the token"
    // would send the admin to a token already put right. Whether it is accepted shows at the next answer.
    const authCleared = previous.auth === 'failed' ? { auth: 'unknown' as const, authFailedSince: null } : {};
    this.write({ lastError: message, lastErrorAt: now, lastResult, failingSince, ...authCleared });
  }

  /**
   * The HRMS answers an empty probe again after being unreachable: said once, at info, with what it
   * answered. Any answer but a 5xx counts as "up", so a refused token or a 404 is not "accepted":
   * the log said "an empty test batch was accepted" over a 401 (a new-user trial).
   */
  reachable(answer: AttendanceAnswer): void {
    if (this.trouble !== 'transient') return;
    this.logger.info(
      { failedAttempts: this.failures },
      `${this.delivery}: the HRMS answers again${this.probeWords(answer)}`,
    );
    this.trouble = undefined;
  }

  /** What the probe's answer means for delivery, in plain words. */
  private probeWords(answer: AttendanceAnswer): string {
    if (answer.kind === 'answered') return ': delivery resumes now (an empty test batch was accepted)';
    const got = 'message' in answer ? answerText(answer) : '';
    if (answer.kind === 'auth')
      return `, but it refused the ${this.credential.what} of an empty test batch (${got}): nothing is delivered until a valid ${this.credential.what} is in place`;
    return `: delivery resumes now (an empty test batch was not accepted: ${got})`;
  }

  private write(patch: Partial<DeliveryRecord>, hold = false): void {
    // A held state not yet written comes first: this newer one wins where both say something.
    const full = { ...this.held, ...(this.attemptAt === null ? {} : { lastAttemptAt: this.attemptAt }), ...patch };
    this.held = undefined;
    this.attemptAt = null;
    if (hold) this.held = full;
    else this.state.update(full);
  }

  private note(kind: Trouble, loud: () => void): void {
    this.failures++;
    if (this.trouble !== kind) loud();
    else this.logger.debug({ failures: this.failures }, `${this.delivery} still failing (${kind})`);
    this.trouble = kind;
  }
}

/** "HTTP 401: Invalid token": an answer's status (unless its message names it already) and message. */
function answerText(a: { httpStatus?: number; message: string }): string {
  const status =
    a.httpStatus === undefined || a.message.includes(`HTTP ${a.httpStatus}`) ? '' : `HTTP ${a.httpStatus}: `;
  return `${status}${a.message}`;
}
