import type { Config } from '../../config/schema.js';
import { sinksOf, terminalsNotFor } from '../../config/sinks.js';
import type { Journal } from '../../journal/journal.js';
import type { SinkQueue } from '../../journal/sink-deliveries.js';
import type { StoredPunch } from '../../journal/types.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { escapeControls, safeJson } from '../../util/terminal-text.js';
import { textTableLines } from '../../util/text-table.js';
import { parseState, type ListOptions } from './punches-list.js';

/**
 * `--sink NAME` of `punches` and `punches retry`: the sink's own state of each punch. The default
 * sink (the first of the config) is the journal's punches as ever: undefined is returned for it,
 * and the command goes on as without --sink.
 */
export function sinkQueueOf(config: Config, journal: Journal, name: string): SinkQueue | undefined {
  const sinks = sinksOf(config);
  const i = sinks.findIndex((s) => s.name === name);
  if (i < 0)
    throw new ExitError(
      `--sink: no sink is named ${name} (the sinks are: ${sinks.map((s) => s.name).join(', ')})`,
      EXIT.CONFIG,
    );
  return i === 0 ? undefined : journal.sinkQueue(name, terminalsNotFor(config, name));
}

const HEADER = ['DEVICELOG ID', 'TERMINAL', 'CODE', 'LOG TIME', 'STATE', 'ATTEMPTS', 'LAST ANSWER'] as const;

/** Lists a sink's punches, newest first (state, terminal and code filters; the others belong to the default sink). */
export function listSinkPunches(
  q: SinkQueue,
  opts: ListOptions,
  out: (line: string) => void,
  /** What the listed rows need beside the sink's columns (punches-held.ts: why a punch waits). */
  annotate: (rows: StoredPunch[]) => StoredPunch[] = (rows) => rows,
): void {
  for (const [flag, set] of [
    ['--since', opts.since],
    ['--until', opts.until],
    ['--history', opts.history],
    ['--by-delivery', opts.byDelivery],
  ] as const)
    if (set)
      throw new ExitError(`${flag} is not available with --sink (only --state, --terminal, --code)`, EXIT.CONFIG);
  const undelivered = opts.state === 'undelivered';
  const state = opts.state === undefined || undelivered ? undefined : parseState(opts.state, ['undelivered']);
  const filter = {
    ...(state ? { state } : {}),
    ...(undelivered ? { undelivered } : {}),
    ...(opts.terminal ? { terminal: opts.terminal } : {}),
    ...(opts.code ? { codes: opts.code } : {}),
    newestFirst: true,
  };
  if (opts.count) {
    out(String(q.list(filter).length));
    return;
  }
  const shown = annotate(q.list({ ...filter, limit: opts.limit }));
  if (opts.json) {
    for (const r of shown) out(safeJson({ ...r, sink: q.sink }));
    return;
  }
  if (shown.length === 0) {
    out(`no punches match for sink ${q.sink}`);
    return;
  }
  const table = textTableLines(
    HEADER,
    shown.map((p) => [
      p.devicelogId,
      escapeControls(p.terminal),
      escapeControls(p.biometricCode),
      p.logTime,
      p.state,
      String(p.attempts),
      escapeControls(p.lastMessage ?? ''),
    ]),
    { right: [5] },
  );
  for (const l of table) out(l);
}
