import type {
  ClaimOptions,
  DueCountOptions,
  DeliveryQueue,
  DeliveryRecord,
  OutboundPunch,
  PunchOutcome,
} from '../../src/journal/types.js';

interface Row {
  id: number;
  code: string;
  logTime: string;
  state: 'pending' | 'inflight' | 'delivered' | 'rejected';
  from: 'pending' | 'rejected';
  attempts: number;
  nextAt: number;
}

/**
 * An in-memory DeliveryQueue for property tests: the journal's contract without SQLite.
 * It throws on any misuse (settling or releasing a punch that is not inflight), so a test
 * fails loudly if the deliverer settles something twice or forgets a claim.
 */
export class MemoryQueue implements DeliveryQueue {
  readonly rows = new Map<number, Row>();
  private nextId = 1;
  constructor(private readonly now: () => number = () => 0) {}

  add(code: string, logTime: string): number {
    const id = this.nextId++;
    this.rows.set(id, { id, code, logTime, state: 'pending', from: 'pending', attempts: 0, nextAt: 0 });
    return id;
  }

  claim(limit: number, opts: ClaimOptions = {}): OutboundPunch[] {
    const due = [...this.rows.values()]
      .filter(
        (r) => r.state === 'pending' || (r.state === 'rejected' && (opts.ignoreBackoff || r.nextAt <= this.now())),
      )
      .sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : a.id - b.id))
      .slice(0, limit);
    return due.map((r) => {
      r.from = r.state as 'pending' | 'rejected';
      r.state = 'inflight';
      return {
        id: r.id,
        devicelogId: `m-${r.id}`,
        biometricCode: r.code,
        logTime: r.logTime,
        terminal: 'memory',
        device: '',
        punchState: null,
        attempts: r.attempts,
        previousState: r.from,
      };
    });
  }

  settle(outcomes: readonly PunchOutcome[]): void {
    for (const o of outcomes) {
      const r = this.inflight(o.id);
      if (o.kind === 'unknown') r.state = r.from;
      else if (o.kind === 'rejected')
        Object.assign(r, { state: 'rejected', attempts: r.attempts + 1, nextAt: this.now() + 3_600_000 });
      else Object.assign(r, { state: 'delivered', attempts: r.attempts + 1 });
    }
  }

  release(ids: readonly number[]): void {
    for (const id of ids) {
      const r = this.inflight(id);
      r.state = r.from;
    }
  }

  nextDueAt(): number | null {
    const rows = [...this.rows.values()];
    if (rows.some((r) => r.state === 'pending')) return this.now();
    const next = rows.filter((r) => r.state === 'rejected').map((r) => r.nextAt);
    return next.length ? Math.min(...next) : null;
  }

  dueCount(opts: DueCountOptions = {}): number {
    const n = [...this.rows.values()].filter(
      (r) => r.state === 'pending' || (r.state === 'rejected' && (opts.ignoreBackoff || r.nextAt <= this.now())),
    ).length;
    return opts.atMost === undefined ? n : Math.min(n, opts.atMost);
  }

  count(state: Row['state']): number {
    return [...this.rows.values()].filter((r) => r.state === state).length;
  }

  private inflight(id: number): Row {
    const r = this.rows.get(id);
    if (!r || r.state !== 'inflight') throw new Error(`punch ${id} is not inflight (${r?.state ?? 'missing'})`);
    return r;
  }
}

/** DeliveryRecord holder without a database. */
export function memoryState(): { get(): DeliveryRecord; update(p: Partial<DeliveryRecord>): void } {
  let rec: DeliveryRecord = {
    auth: 'unknown',
    authFailedSince: null,
    lastAttemptAt: null,
    lastSuccessAt: null,
    lastError: null,
    lastErrorAt: null,
    lastResult: null,
    failingSince: null,
  };
  return { get: () => ({ ...rec }), update: (p) => void (rec = { ...rec, ...p }) };
}
