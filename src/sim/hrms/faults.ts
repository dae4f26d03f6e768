import type { HrmsFaults } from './types.js';
import { seededRandom as mulberry32 } from '../../util/seeded-random.js';

export function defaultFaults(): HrmsFaults {
  return {
    latencyMs: 0,
    errorRate: 0,
    resetRate: 0,
    resetAfterProcessing: false,
    nonJsonRate: 0,
    shortPayload: 0,
    tokenExpiresAt: null,
    rateLimitPerSecond: null,
    maxBatch: null,
    poisonCodes: [],
    seed: 1,
  };
}

function checkFaults(f: HrmsFaults): void {
  const problems: string[] = [];
  const rate = (k: 'errorRate' | 'resetRate' | 'nonJsonRate') => {
    if (!(f[k] >= 0 && f[k] <= 1)) problems.push(`${k}: must be a number from 0 to 1`);
  };
  rate('errorRate');
  rate('resetRate');
  rate('nonJsonRate');
  if (!(f.latencyMs >= 0)) problems.push('latencyMs: must be a number >= 0');
  if (!(Number.isInteger(f.shortPayload) && f.shortPayload >= 0))
    problems.push('shortPayload: must be an integer >= 0');
  if (f.rateLimitPerSecond !== null && !(Number.isInteger(f.rateLimitPerSecond) && f.rateLimitPerSecond >= 1)) {
    problems.push('rateLimitPerSecond: must be an integer >= 1 or null');
  }
  if (f.maxBatch !== null && !(Number.isInteger(f.maxBatch) && f.maxBatch >= 1))
    problems.push('maxBatch: must be an integer >= 1 or null');
  if (f.tokenExpiresAt !== null && !Number.isFinite(f.tokenExpiresAt))
    problems.push('tokenExpiresAt: must be epoch ms or null');
  if (!Array.isArray(f.poisonCodes) || f.poisonCodes.some((c) => typeof c !== 'string'))
    problems.push('poisonCodes: must be an array of strings');
  if (typeof f.resetAfterProcessing !== 'boolean') problems.push('resetAfterProcessing: must be a boolean');
  if (!Number.isFinite(f.seed)) problems.push('seed: must be a number');
  if (problems.length) throw new Error(problems.join('; '));
}

/** What the fault switches decided for one request. */
export interface FaultDraw {
  reset: boolean;
  error: boolean;
  nonJson: boolean;
}

/** The current fault switches, their PRNG and the rate-limit window. */
export class FaultState {
  private current: HrmsFaults;
  private random: () => number;
  private windowSecond = -1;
  private windowCount = 0;

  constructor(private readonly initial: Partial<HrmsFaults>) {
    this.current = { ...defaultFaults(), ...initial };
    checkFaults(this.current);
    this.random = mulberry32(this.current.seed);
  }

  get(): HrmsFaults {
    return { ...this.current, poisonCodes: [...this.current.poisonCodes] };
  }

  /** Merges switches; unknown keys are refused so a typo in a test does not pass silently. */
  set(partial: Partial<HrmsFaults>): void {
    const known = new Set(Object.keys(defaultFaults()));
    const unknown = Object.keys(partial).filter((k) => !known.has(k));
    if (unknown.length) throw new Error(`unknown fault switch: ${unknown.join(', ')}`);
    const next = { ...this.current, ...partial };
    checkFaults(next);
    this.current = next;
    if (partial.seed !== undefined) this.random = mulberry32(next.seed);
  }

  reset(): void {
    this.current = { ...defaultFaults(), ...this.initial };
    this.random = mulberry32(this.current.seed);
    this.windowSecond = -1;
    this.windowCount = 0;
  }

  /** Three draws per request whatever the rates, so changing one rate does not shift the others' sequence. */
  draw(): FaultDraw {
    const r = this.random();
    const e = this.random();
    const n = this.random();
    return {
      reset: r < this.current.resetRate,
      error: e < this.current.errorRate,
      nonJson: n < this.current.nonJsonRate,
    };
  }

  /** Counts one request in the current clock second; answers the Retry-After seconds when over the limit. */
  rateLimited(now: number): number | null {
    const limit = this.current.rateLimitPerSecond;
    const second = Math.floor(now / 1000);
    if (second !== this.windowSecond) {
      this.windowSecond = second;
      this.windowCount = 0;
    }
    this.windowCount++;
    if (limit === null || this.windowCount <= limit) return null;
    // The window is one clock second, so the next one opens within a second.
    return 1;
  }
}
