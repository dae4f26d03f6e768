import type { HikFirmware, NewSimEvent, SimEvent } from './types.js';

/** A UTC offset as minutes: `+05:30` -> 330, `+05` (hours only, as ISO 8601 allows) -> 300, `Z` -> 0. */
export function offsetMinutes(offset: string): number {
  if (offset === 'Z' || offset === '') return 0;
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(offset);
  if (!m) throw new RangeError(`not a UTC offset: ${offset}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** Instant `ms` as the device writes it: wall clock at `offset`, with the offset. */
export function isoAtOffset(ms: number, offset: string): string {
  const d = new Date(ms + offsetMinutes(offset) * 60_000);
  return `${d.toISOString().slice(0, 19)}${offset === '' ? '' : offset}`;
}

/** Epoch ms of a device time with an offset (a time without one is read at `fallbackOffset`). */
export function epochOf(time: string, fallbackOffset: string): number {
  // `00:00`: a zero offset written without its sign, as some firmware writes it (see splitIsoTime).
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(Z|[+-]\d{2}(?::?\d{2})?|00:00)?$/.exec(time.trim());
  if (!m) return NaN;
  return Date.parse(`${m[1]}Z`) - (m[2] === '00:00' ? 0 : offsetMinutes(m[2] ?? fallbackOffset)) * 60_000;
}

export interface SearchCond {
  major: number;
  minor: number;
  beginSerialNo?: number;
  endSerialNo?: number;
  startTime?: string;
  endTime?: string;
}

export interface SearchAnswer {
  rows: SimEvent[];
  total: number;
}

/** An answer this small is not worth keeping for the next page. */
const CACHE_SEARCHES = 4;

/**
 * The device's event log: events in serial-number order, and the search over it. A search's
 * matches are kept for its next pages (by searchID, as a device keeps a search open), so a
 * 100,000-event log is not filtered again for every page of 30.
 */
export class EventLog {
  private list: SimEvent[] = [];
  private epochs: number[] = [];
  private nextSerial = 1;
  private readonly searches = new Map<string, SimEvent[]>();

  constructor(private readonly offset: () => string) {}

  all(): SimEvent[] {
    return [...this.list];
  }

  add(events: readonly NewSimEvent[], deviceTime: () => string): SimEvent[] {
    const added = events.map((e) => {
      const ev: SimEvent = { ...e, serialNo: e.serialNo ?? this.nextSerial++, time: e.time ?? deviceTime() };
      // Kept in serial-number order, as a device searches: a number given out of turn goes to its place.
      const at = this.indexOfSerial(ev.serialNo + 1);
      this.list.splice(at, 0, ev);
      this.epochs.splice(at, 0, epochOf(ev.time, this.offset()));
      return ev;
    });
    return added;
  }

  /** The serial number the next event gets. */
  get next(): number {
    return this.nextSerial;
  }

  clear(): void {
    this.list = [];
    this.epochs = [];
    this.nextSerial = 1;
    this.searches.clear();
  }

  /** First index whose serialNo is >= n (serial numbers only grow). */
  private indexOfSerial(n: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.list[mid]!.serialNo < n) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private match(c: SearchCond, fw: HikFirmware): SimEvent[] {
    const useSerial = fw.serialFilters === 'yes';
    const from = useSerial && c.beginSerialNo !== undefined ? this.indexOfSerial(c.beginSerialNo) : 0;
    const endSerial = useSerial && c.endSerialNo !== undefined ? c.endSerialNo : Infinity;
    const start = c.startTime !== undefined ? epochOf(c.startTime, this.offset()) : -Infinity;
    const end = c.endTime !== undefined ? epochOf(c.endTime, this.offset()) : Infinity;
    const out: SimEvent[] = [];
    for (let i = from; i < this.list.length; i++) {
      const e = this.list[i]!;
      if (e.serialNo > endSerial) break;
      if (c.major !== 0 && e.major !== c.major) continue;
      if (c.minor !== 0 && e.minor !== c.minor) continue;
      const t = this.epochs[i]!;
      if (t < start || t > end) continue;
      out.push(e);
    }
    return out;
  }

  /** One page: at most `min(maxResults, pageCap)` rows from `position`. */
  search(searchId: string, c: SearchCond, position: number, maxResults: number, fw: HikFirmware): SearchAnswer {
    const key = `${searchId}\n${JSON.stringify(c)}`;
    let matches = this.searches.get(key);
    if (!matches || position === 0) {
      matches = this.match(c, fw);
      this.searches.delete(key);
      this.searches.set(key, matches);
      while (this.searches.size > CACHE_SEARCHES) this.searches.delete(this.searches.keys().next().value!);
    }
    const n = Math.max(0, Math.min(maxResults, fw.pageCap));
    return { rows: matches.slice(position, position + n), total: matches.length };
  }
}
