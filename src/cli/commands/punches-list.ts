import { InvalidArgumentError, type Command } from 'commander';
import type { PunchAttempt, PunchListFilter } from '../../journal/history.js';
import type { Journal } from '../../journal/journal.js';
import { PUNCH_STATES, type PunchState, type StoredPunch } from '../../journal/types.js';
import { nearMiss } from '../../config/near-miss.js';
import { directionShower, directionWord, type ShownDirection } from '../../punch/direction.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { escapeControls, safeJson } from '../../util/terminal-text.js';
import { localTime } from '../../util/local-time.js';
import { textTableLines } from '../../util/text-table.js';

/** `punchgate punches`: the listing (its subcommands live in punches.ts). */
export interface ListOptions {
  state?: string;
  terminal?: string;
  code?: string[];
  since?: string;
  until?: string;
  limit: number;
  json?: boolean;
  history?: boolean;
  count?: boolean;
  byDelivery?: boolean;
  /** Another sink's state of each punch (punches-sink.ts). */
  sink?: string;
}

export const DEFAULT_LIMIT = 100;

/** `--state` of the listing: a state, or `undelivered` (every state but delivered and not_routed). */
function parseListState(s: string | undefined): PunchState | 'undelivered' | undefined {
  return s === 'undelivered' ? s : parseState(s, ['undelivered']);
}

/** `also`: other words the command takes (the listing's `undelivered`), named in the refusal. */
export function parseState(s: string | undefined, also: readonly string[] = []): PunchState | undefined {
  if (s === undefined) return undefined;
  if (!(PUNCH_STATES as readonly string[]).includes(s)) {
    const words = [...PUNCH_STATES, ...also];
    const meant = nearMiss(s, words);
    throw new ExitError(
      `--state: must be one of ${words.join(', ')}, found "${escapeControls(s)}"${meant ? ` (did you mean ${meant}?)` : ''}`,
      EXIT.CONFIG,
    );
  }
  return s as PunchState;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * A date (and time) in the terminals' own wall-clock time, as punches are stored:
 * `2026-11-22`, `2026-11-22 08:00` or `2026-11-22 08:00:30`. `--since` starts at its first
 * second, `--until` ends with its last (a day, a minute, or the second given).
 */
export function logTime(edge: 'since' | 'until') {
  return (v: string): string => {
    const m = DATE.exec(v.trim());
    const [y, mo, d, h, mi, s] = (m ?? []).slice(1).map((x) => (x === undefined ? undefined : Number(x)));
    const real =
      m &&
      mo! >= 1 &&
      mo! <= 12 &&
      d! >= 1 &&
      d! <= new Date(Date.UTC(y!, mo!, 0)).getUTCDate() &&
      (h ?? 0) <= 23 &&
      (mi ?? 0) <= 59 &&
      (s ?? 0) <= 59;
    if (!real) {
      throw new InvalidArgumentError('must be a date such as 2026-11-22, or 2026-11-22 08:00 (the terminal clock)');
    }
    const p = (n: number) => String(n).padStart(2, '0');
    const last = edge === 'until';
    const hh = h ?? (last ? 23 : 0);
    const mm = mi ?? (last ? 59 : 0);
    const ss = s ?? (last ? 59 : 0);
    return `${y}-${p(mo!)}-${p(d!)} ${p(hh)}:${p(mm)}:${p(ss)}`;
  };
}

function positive(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1) throw new InvalidArgumentError('must be a whole number, 1 or more');
  return n;
}

/** `--code 1042 --code 1043`, or `--code 1042,1043`. */
export const collectCodes = (v: string, prev: string[] = []) => [
  ...prev,
  ...v
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean),
];

export function addListOptions(cmd: Command): Command {
  return cmd
    .option(
      '--state <state>',
      `only this state (${PUNCH_STATES.join(', ')}), or undelivered (all but delivered and not_routed)`,
    )
    .option('--terminal <name>', 'only this terminal')
    .option('--sink <name>', "this sink's state of each punch (default: the first sink's)")
    .option('--code <code>', 'only this biometric code (repeat it, or 1042,1043, for several)', collectCodes)
    .option('--since <date>', 'log times from this day or time on (2026-11-22, or 2026-11-22 08:00)', logTime('since'))
    .option('--until <date>', 'log times up to the end of this day or time', logTime('until'))
    .option('--limit <n>', 'at most this many, newest first', positive, DEFAULT_LIMIT)
    .option(
      '--by-delivery',
      'delivered punches, the most recently delivered first, with the time of delivery (--limit 20: the last 20 deliveries)',
    )
    .option('--json', 'one JSON object per line')
    .option('--history', "each attempt's answer from the HRMS, under its punch")
    .option('--count', 'print only how many punches match (no --limit): `--state undelivered --count`');
}

const OUTCOME: Record<PunchAttempt['outcome'], string> = {
  rejected: 'refused, tried again later',
  dead: 'refused, given up (dead)',
  delivered: 'delivered',
  duplicate: 'already recorded (counted as delivered)',
};

const HEADER = [
  'DEVICELOG ID',
  'TERMINAL',
  'CODE',
  'LOG TIME',
  'DIRECTION',
  'STATE',
  'ATTEMPTS',
  'LAST ANSWER',
] as const;
/** By delivery: when each was delivered (the box's time) in place of the state, which is `delivered` for all. */
const HEADER_BY_DELIVERY = [
  'DEVICELOG ID',
  'TERMINAL',
  'CODE',
  'LOG TIME',
  'DIRECTION',
  'DELIVERED',
  'ATTEMPTS',
  'LAST ANSWER',
] as const;

/** Which way the punch is sent, and the state the terminal recorded: `out (check-out)`, `in`, `-`. */
function directionCell(d: ShownDirection): string {
  return d.stateName === '' ? directionWord(d) : `${directionWord(d)} (${d.stateName})`;
}

function cells(p: StoredPunch, byDelivery: boolean, d: ShownDirection): string[] {
  return [
    p.devicelogId,
    escapeControls(p.terminal),
    escapeControls(p.biometricCode),
    p.logTime,
    directionCell(d),
    byDelivery ? (p.deliveredAt === null ? '-' : localTime(p.deliveredAt)) : p.state,
    String(p.attempts),
    escapeControls(p.lastMessage ?? ''),
  ];
}

/** Writes a line; false once the reader has gone (stdout closed: `| head`), to stop early. */
type Out = (line: string) => boolean;

const stdoutLine: Out = (line) => {
  if (process.stdout.destroyed) return false;
  process.stdout.write(`${line}\n`);
  return !process.stdout.destroyed;
};

/**
 * Lists punches newest first (by log time, or by delivery time with `--by-delivery`), with a
 * header, filtered by state, terminal, code and log-time range; with `--history`, every answer
 * the HRMS gave to each, under it. Each with the state its terminal recorded and the direction
 * sinks are given, by the terminals' settings in `terminals` (the config's).
 */
export function listPunches(
  journal: Journal,
  opts: ListOptions,
  out: Out = stdoutLine,
  err = stderrLine,
  terminals: Parameters<typeof directionShower>[0] = [],
  /** The rule of a terminal taken out of the config, as the journal kept it (kept-direction.ts). */
  kept: Parameters<typeof directionShower>[1] = undefined,
  /** What the listed rows need beside the journal's columns (punches-held.ts: why a punch waits). */
  annotate: (rows: StoredPunch[]) => StoredPunch[] = (rows) => rows,
): void {
  const show = directionShower(terminals, kept);
  const state = parseListState(opts.state);
  const byDelivery = opts.byDelivery ?? false;
  if (byDelivery && state !== undefined && state !== 'delivered')
    throw new ExitError(
      `--by-delivery lists delivered punches: leave out --state ${state} (or list by log time without --by-delivery)`,
      EXIT.CONFIG,
    );
  const filter: PunchListFilter = {
    state,
    ...(byDelivery ? { byDelivery } : {}),
    ...(opts.terminal ? { terminal: opts.terminal } : {}),
    ...(opts.code ? { codes: opts.code } : {}),
    ...(opts.since ? { since: opts.since } : {}),
    ...(opts.until ? { until: opts.until } : {}),
    limit: opts.limit,
  };
  if (opts.count) {
    // A number alone, for scripts (the package's removal counts what the journal still owes).
    const { limit: _all, ...unlimited } = filter;
    out(String(journal.history.count(unlimited)));
    return;
  }
  const rows = annotate(journal.history.list(filter));
  const history = opts.history ? journal.history.attemptsOf(rows) : undefined;
  if (opts.json) {
    for (const r of rows) {
      const line = { ...r, ...show(r), ...(history ? { history: history.get(r.id) } : {}) };
      if (!out(safeJson(line))) return;
    }
    return;
  }
  if (rows.length === 0) {
    out('no punches match');
    return;
  }
  const table = textTableLines(
    byDelivery ? HEADER_BY_DELIVERY : HEADER,
    rows.map((r) => cells(r, byDelivery, show(r))),
    { right: [6] },
  );
  if (!out(table[0]!)) return;
  for (const [i, r] of rows.entries()) {
    if (!out(table[i + 1]!)) return;
    if (!history) continue;
    const attempts = history.get(r.id) ?? [];
    if (attempts.length === 0) {
      if (!out(`    ${r.attempts === 0 ? 'not answered yet' : 'no answer kept (older than journal.retentionDays)'}`))
        return;
    }
    for (const a of attempts) {
      const text = `    ${localTime(a.at)}  attempt ${a.attempt}: ${OUTCOME[a.outcome]}${a.message ? `: ${escapeControls(a.message)}` : ''}`;
      if (!out(text)) return;
    }
  }
  if (rows.length === opts.limit) {
    const total = journal.history.count(filter);
    if (total > rows.length)
      err(
        byDelivery
          ? `showing the last ${rows.length} of ${total} delivered punches: --limit ${total} shows all`
          : `showing the newest ${rows.length} of ${total} punches: --limit ${total} shows all`,
      );
  }
}

function stderrLine(line: string): void {
  process.stderr.write(`${line}\n`);
}
