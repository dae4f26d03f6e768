import type { Config } from '../config/schema.js';
import type { ListenerFact } from '../util/listener-fact.js';
import { ALERT, type Alert } from './alert-words.js';
import { fileHandlesShort } from './file-handle-words.js';
import type { FileHandleShortage } from '../util/file-limit.js';
import type { ListenerStatus, LiveFacts, StatusReport } from './types.js';

const port = (listen: string) => /:(\d+)$/.exec(listen)?.[1] ?? listen;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The ports the daemon listens on (the push terminal receiver, the status page) in the status,
 * and an alert for each it cannot take: while the push terminal receiver cannot listen, its push
 * terminals are not online (they cannot reach it) and say why, whatever they did before.
 */
export function addListenerStatus(report: StatusReport, config: Config, live: LiveFacts | undefined): Alert[] {
  const facts = live?.listeners;
  if (!facts) return [];
  report.listeners = facts.map(listenerStatus);
  const out: Alert[] = [];
  for (const l of report.listeners) {
    if (l.fileHandles) out.push(fileHandlesShort(l.fileHandles));
    if (l.up || l.downSince === null) continue;
    if (l.listener === 'status') {
      out.push(ALERT.listenerDown(l, { push: [], posting: [] }));
      continue;
    }
    const push = report.terminals.filter((t) => t.kind === 'adms');
    const posting = config.terminals.filter((t) => t.kind === 'hikvision' && t.listen).map((t) => t.name);
    const alert = ALERT.listenerDown(l, { push: push.map((t) => t.name), posting });
    out.push(alert);
    for (const t of push) {
      Object.assign(t, {
        online: false,
        stale: t.lastSuccessAt !== null,
        listenerDown: 'push',
        problem: {
          cause: `it cannot send: the push terminal receiver cannot listen on ${l.listen}`,
          fix: `free port ${port(l.listen)} or change adms.listen (the alert above says how)`,
        },
      });
    }
  }
  return out;
}

function listenerStatus(f: ListenerFact): ListenerStatus {
  return {
    listener: f.listener,
    listen: f.listen,
    up: f.up,
    downSince: iso(f.downSince),
    code: f.code,
    nextTryAt: iso(f.nextTryAt),
    ...(f.fileHandles ? { fileHandles: f.fileHandles } : {}),
  };
}

/** The live facts back from a running daemon's status.json (`punchgate status`). */
export function listenerFacts(shown: readonly ListenerStatus[] | undefined): ListenerFact[] | undefined {
  if (!Array.isArray(shown)) return undefined;
  const ms = (s: string | null) => {
    const n = s ? Date.parse(s) : NaN;
    return Number.isFinite(n) ? n : null;
  };
  return shown
    .filter((l) => (l.listener === 'push' || l.listener === 'status') && typeof l.listen === 'string')
    .map((l) => ({
      listener: l.listener,
      listen: l.listen,
      up: l.up === true,
      downSince: ms(l.downSince),
      code: typeof l.code === 'string' ? l.code : null,
      nextTryAt: ms(l.nextTryAt),
      ...(shortage(l.fileHandles) ? { fileHandles: l.fileHandles } : {}),
    }));
}

/** A shortage read back from status.json: every figure a number (a file written by another version may lack them). */
function shortage(x: unknown): x is FileHandleShortage {
  const s = x as Partial<FileHandleShortage> | undefined;
  return (
    typeof s === 'object' &&
    s !== null &&
    [s.limit, s.configured, s.maxConnections, s.wanted].every((n) => typeof n === 'number') &&
    (s.fitsWith === undefined || typeof s.fitsWith === 'number')
  );
}
