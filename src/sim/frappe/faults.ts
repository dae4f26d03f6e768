import { seededRandom } from '../../util/seeded-random.js';

/** Fault switches of the Frappe simulator (settable at start and through POST /__sim/faults). */
export interface FrappeFaults {
  /** Every request answered 502 by "nginx" (the site's workers down). */
  down: boolean;
  /** Delay before each API answer, ms. */
  latencyMs: number;
  /**
   * The next N API requests are over the site's rate limit (site_config `rate_limit`): 429, as
   * frappe/rate_limiter.py and app.py answer it (after the window's rest, Retry-After).
   */
  rateLimited: number;
  /** Seconds left in the rate limit's window (Retry-After, X-RateLimit-Reset). */
  rateLimitResetSeconds: number;
  /** The next N check-in calls fail with a lock wait timeout (QueryTimeoutError) before writing. */
  lockTimeouts: number;
  /** Probability 0..1 of that lock wait timeout on any check-in call. */
  lockRate: number;
  /** HTTP status of the lock timeout: 417 as some sites wrap it in frappe.throw, 500 as Frappe sends it bare. */
  lockStatus: number;
  /** Probability 0..1 of an HTTP 500 (an uncaught error) before writing. */
  errorRate: number;
  /** Employee field values whose check-ins are refused with a ValidationError. */
  refuseCodes: string[];
  /** The API user lacks the right to create Employee Checkins (403 PermissionError). */
  noPermission: boolean;
  /** The API user may not read Employee (403 PermissionError on /api/resource/Employee); check-ins still pass. */
  noEmployeeRead: boolean;
  /**
   * HR Settings → Allow Geolocation Tracking is on (hrms v15+, for the mobile app's check-ins):
   * EmployeeCheckin.validate_distance_from_shift_location then refuses every check-in that has
   * neither latitude nor longitude.
   */
  geolocationTracking: boolean;
  /**
   * The naming series of Employee Checkin is behind its documents (a restore, an import of
   * check-ins with their names): each new check-in is given the newest existing one's name, and
   * BaseDocument.db_insert meets the primary key and raises DuplicateEntryError (HTTP 409). The
   * failed request's rollback takes the series' step back too, so every call after meets it alike.
   * With no check-in yet, the name is free and the call passes.
   */
  seriesBehind: boolean;
  /** Seed of the rates. */
  seed: number;
}

export function defaultFrappeFaults(): FrappeFaults {
  return {
    down: false,
    latencyMs: 0,
    rateLimited: 0,
    rateLimitResetSeconds: 30,
    lockTimeouts: 0,
    lockRate: 0,
    lockStatus: 417,
    errorRate: 0,
    refuseCodes: [],
    noPermission: false,
    noEmployeeRead: false,
    geolocationTracking: false,
    seriesBehind: false,
    seed: 1,
  };
}

function check(f: FrappeFaults): void {
  const p: string[] = [];
  for (const k of ['lockRate', 'errorRate'] as const)
    if (!(typeof f[k] === 'number' && f[k] >= 0 && f[k] <= 1)) p.push(`${k}: must be a number from 0 to 1`);
  for (const k of ['latencyMs', 'lockTimeouts', 'rateLimited', 'rateLimitResetSeconds'] as const)
    if (!(Number.isInteger(f[k]) && f[k] >= 0)) p.push(`${k}: must be an integer >= 0`);
  if (!(Number.isInteger(f.lockStatus) && f.lockStatus >= 400 && f.lockStatus <= 599))
    p.push('lockStatus: must be an HTTP status from 400 to 599');
  for (const k of ['down', 'noPermission', 'noEmployeeRead', 'geolocationTracking', 'seriesBehind'] as const)
    if (typeof f[k] !== 'boolean') p.push(`${k}: must be a boolean`);
  if (!Array.isArray(f.refuseCodes) || f.refuseCodes.some((c) => typeof c !== 'string'))
    p.push('refuseCodes: must be an array of strings');
  if (!Number.isInteger(f.seed)) p.push('seed: must be an integer');
  if (p.length) throw new Error(p.join('; '));
}

export class FrappeFaultState {
  private f: FrappeFaults;
  private random: () => number;

  constructor(private readonly initial: Partial<FrappeFaults>) {
    this.f = { ...defaultFrappeFaults(), ...initial };
    check(this.f);
    this.random = seededRandom(this.f.seed);
  }

  get(): FrappeFaults {
    return { ...this.f, refuseCodes: [...this.f.refuseCodes] };
  }

  set(change: Partial<FrappeFaults>): void {
    const unknown = Object.keys(change).filter((k) => !(k in this.f));
    if (unknown.length) throw new Error(`unknown fault ${unknown.join(', ')}`);
    const next = { ...this.f, ...change };
    check(next);
    if (next.seed !== this.f.seed) this.random = seededRandom(next.seed);
    this.f = next;
  }

  reset(): void {
    this.f = { ...defaultFrappeFaults(), ...this.initial };
    this.random = seededRandom(this.f.seed);
  }

  /** Whether this check-in call meets a lock timeout (counting down lockTimeouts first). */
  drawLock(): boolean {
    if (this.f.lockTimeouts > 0) {
      this.f.lockTimeouts--;
      return true;
    }
    return this.f.lockRate > 0 && this.random() < this.f.lockRate;
  }

  /** Whether this request is over the rate limit (counting down rateLimited). */
  drawRateLimit(): boolean {
    if (this.f.rateLimited <= 0) return false;
    this.f.rateLimited--;
    return true;
  }

  drawError(): boolean {
    return this.f.errorRate > 0 && this.random() < this.f.errorRate;
  }
}
