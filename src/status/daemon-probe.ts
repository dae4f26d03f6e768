import { statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { OwnerLock } from '../journal/lock.js';
import { readLastStop } from './last-stop.js';
import { readSmallPlainFile } from '../util/small-file.js';
import { listenerFacts } from './listeners.js';
import type { DaemonLiveness, DiskSyncFigures, ListenerStatus, LiveFacts, SinkStatus, StatusReport } from './types.js';

/** Slack on top of three missed rewrites before the status log counts as stale. */
const SLACK_MS = 30_000;

/** The machine-readable twin of the status log, written beside it (`status.txt` -> `status.json`). */
export function statusJsonPath(statusPath: string): string {
  return /\.txt$/.test(statusPath) ? statusPath.replace(/\.txt$/, '.json') : `${statusPath}.json`;
}

/**
 * The largest status.json read: a few KB per terminal, so a fleet of hundreds stays far below;
 * a file far larger is no report the daemon wrote.
 */
const MAX_STATUS_JSON_BYTES = 32 * 1024 * 1024;

/**
 * What the daemon last wrote in the status log's JSON twin (`statusPath`'s status.json); throws
 * when it is not there or is no JSON. Read as root by status and check from the service user's
 * folder: a link, a FIFO or a huge file at its name is not read (small-file.ts).
 */
export function readStatusJson(statusPath: string): Partial<StatusReport> {
  return JSON.parse(readSmallPlainFile(statusJsonPath(statusPath), MAX_STATUS_JSON_BYTES)) as Partial<StatusReport>;
}

/**
 * Is `punchgate run` alive? It holds the journal's owner lock for its whole life (the lock dies
 * with the process), and rewrites its status log every `status.intervalMs`. When it runs and its
 * status file is fresh, what only it knows (the journal busy, punches held in memory) is read
 * from that file.
 */
export function probeDaemon(config: Config, now: number): DaemonLiveness {
  const running = OwnerLock.isHeld(config.journal.path);
  const { path, intervalMs } = config.status;
  let statusLogAt: number | null = null;
  try {
    if (path) statusLogAt = statSync(path).mtimeMs;
  } catch {
    statusLogAt = null;
  }
  const checked = Boolean(path) && intervalMs > 0;
  const fresh = statusLogAt !== null && now - statusLogAt <= 3 * intervalMs + SLACK_MS;
  const stale = running && checked && !fresh;
  const out: DaemonLiveness = { running, statusLogAt, stale };
  if (!running) {
    const lastStop = readLastStop(config.journal.path);
    if (lastStop) out.lastStop = lastStop;
  }
  if (running && fresh && path) {
    const live = readLive(path);
    if (live) out.live = live;
  }
  return out;
}

function readLive(statusPath: string): LiveFacts | undefined {
  try {
    const r = readStatusJson(statusPath);
    const busy = r.journal?.busySince ? Date.parse(r.journal.busySince) : null;
    const clockSteps = (r.boxClock?.steps ?? [])
      .map((s) => ({ at: Date.parse(s.at), deltaMs: s.seconds * 1000 }))
      .filter((s) => Number.isFinite(s.at) && Number.isFinite(s.deltaMs));
    const next = r.delivery?.nextTryAt ? Date.parse(r.delivery.nextTryAt) : null;
    const loop = r.eventLoop;
    const loopSince = loop ? Date.parse(loop.since) : NaN;
    const listeners = listenerFacts(r.listeners);
    const disk: unknown = r.journal?.diskSync;
    const cp = r.journal?.checkpoints;
    const cpAt = cp?.failedAt ? Date.parse(cp.failedAt) : NaN;
    const startedAt = typeof r.runningSince === 'string' ? Date.parse(r.runningSince) : NaN;
    return {
      ...(Number.isFinite(startedAt) ? { startedAt } : {}),
      ...(listeners ? { listeners } : {}),
      journalBusySince: Number.isFinite(busy) ? busy : null,
      heldPunches: r.journal?.heldPunches ?? 0,
      ...(isDiskSync(disk) ? { diskSync: disk } : {}),
      ...(cp && typeof cp.thread === 'string'
        ? {
            checkpoints: {
              thread: cp.thread,
              failedAt: Number.isFinite(cpAt) ? cpAt : null,
              error: typeof cp.error === 'string' ? cp.error : null,
              failures: typeof cp.failures === 'number' ? cp.failures : 0,
            },
          }
        : {}),
      ...(r.config ? { config: r.config } : {}),
      // Probing is the daemon's word, not a next try's: a refused token or a Retry-After waits unprobed.
      delivery: { nextTryAt: Number.isFinite(next) ? next : null, probing: r.delivery?.probing === true },
      ...sinksLive(r.sinks, r.shiftSync),
      ...(clockSteps.length > 0 ? { clockSteps } : {}),
      ...(loop && Number.isFinite(loopSince)
        ? {
            eventLoop: {
              p50Ms: loop.p50Ms,
              p99Ms: loop.p99Ms,
              maxMs: loop.maxMs,
              since: loopSince,
              ...(Array.isArray(loop.longTasks) ? { longTasks: loop.longTasks } : {}),
            },
          }
        : {}),
    };
  } catch {
    return undefined;
  }
}

/** Each sink's next try and probing, as the daemon's status.json says them (its `sinks`, with two sinks or more). */
function sinksLive(sinks: unknown, shiftSync: StatusReport['shiftSync']): Pick<LiveFacts, 'sinks'> {
  const out: NonNullable<LiveFacts['sinks']> = {};
  for (const s of Array.isArray(sinks) ? (sinks as Array<Partial<SinkStatus>>) : []) {
    if (typeof s?.name !== 'string') continue;
    const next = s.delivery?.nextTryAt ? Date.parse(s.delivery.nextTryAt) : NaN;
    out[s.name] = { nextTryAt: Number.isFinite(next) ? next : null, probing: s.delivery?.probing === true };
  }
  // A Frappe sink's shift sync is known to the daemon alone: its facts as it wrote them.
  for (const [name, f] of Object.entries(shiftSync ?? {})) {
    if (typeof f !== 'object' || f === null) continue;
    out[name] = { ...(out[name] ?? { nextTryAt: null, probing: false }), shiftSync: f };
  }
  return Object.keys(out).length > 0 ? { sinks: out } : {};
}

/** Whether the daemon's status.json holds disk sync figures in their shape. */
function isDiskSync(d: unknown): d is DiskSyncFigures {
  const f = d as Partial<DiskSyncFigures> | undefined;
  return (
    typeof f?.syncs === 'number' &&
    typeof f.p90Ms === 'number' &&
    typeof f.maxMs === 'number' &&
    typeof f.windowMinutes === 'number'
  );
}

/**
 * What a running `punchgate run` last wrote in its status.json; none when it does not run or the
 * file cannot be read. Read once by `punchgate check` for all it says of the daemon (the daemon
 * replaces the file every few seconds: read once, the checks speak of one moment).
 */
export function runningReport(config: Config): Partial<StatusReport> | undefined {
  const path = config.status.path;
  if (!path || !OwnerLock.isHeld(config.journal.path)) return undefined;
  try {
    return readStatusJson(path);
  } catch {
    return undefined;
  }
}

/** What a running `punchgate run` last said of one of its listeners (`report`: runningReport); none when it did not say. */
export function runningListener(
  report: Partial<StatusReport> | undefined,
  which: ListenerStatus['listener'],
): ListenerStatus | undefined {
  const shown: unknown = report?.listeners;
  return Array.isArray(shown) ? (shown as ListenerStatus[]).find((l) => l.listener === which) : undefined;
}

/**
 * How long a running `punchgate run` said its journal's disk took to sync (`report`:
 * runningReport); none when it does not run, did not say, or made no sync.
 */
export function runningDiskSync(report: Partial<StatusReport> | undefined): DiskSyncFigures | undefined {
  const shown: unknown = report?.journal?.diskSync;
  return isDiskSync(shown) ? shown : undefined;
}
