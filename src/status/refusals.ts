import type { DeliveryQueue, RefusedPunches } from '../journal/types.js';
import type { HoldPolicy } from '../sinks/hold-policy.js';
import type { Alert } from './alert-words.js';
import { escapeControls, printable } from '../util/terminal-text.js';
import { firstFew } from '../util/first-few.js';

/** Codes named in one alert line; beyond them, "and N more". */
const CODES_SHOWN = 5;
/** Alert lines for refusals at most; the refusals beyond them are counted in one last line. */
const CAUSES_SHOWN = 6;
/** The HRMS's words quoted in an alert at most (escaped, then "... (N chars)"). */
const QUOTE_CHARS = 120;

interface Cause {
  /** What the alert says happened, after "N punches refused: ". */
  words: string;
  /** What to do before `punchgate punches retry` (`one`: a single code). */
  fix: (one: boolean) => string;
}

/**
 * The refusals a site admin can fix in the HRMS, recognised in the HRMS's per-punch message
 * (the contract gives no codes: its words are matched, case-insensitively). Anything else is
 * grouped by the message itself, with the punch's code taken out of it.
 */
const KNOWN: { test: RegExp; key: string; cause: Cause }[] = [
  // Odoo's own refusals name the employee and a time in its locale's words ("Cannot create new
  // attendance record for Ann Lee, the employee hasn't checked out since Dec 2, 2026, 9:03:50 AM"):
  // grouped by the message, each person was a cause of their own (sinks-odoo.md says what to do).
  {
    key: 'odoo-open-record',
    test: /hasn't checked out since/i,
    cause: {
      words: `Odoo still has an attendance of the employee open ("hasn't checked out since")`,
      fix: (one) =>
        `close ${one ? "the employee's" : 'their'} open attendance in Odoo (a forgotten check-out); where people do not press the check-in and check-out keys, set the terminal's direction: alternate (docs/direction.md)`,
    },
  },
  {
    key: 'odoo-inside-record',
    test: /was already checked in on/i,
    cause: {
      words: 'the punch falls inside an attendance Odoo already has ("was already checked in on")',
      fix: () => 'correct that attendance in Odoo',
    },
  },
  // The Odoo sink's own refusal of an out with nothing to close (sinks/odoo/pairing.ts): an in
  // never punched, or people who press out at random (direction: alternate pairs them in turn).
  {
    key: 'odoo-no-open-record',
    test: /has no open attendance in Odoo to close/i,
    cause: {
      words: 'a check-out with no open attendance in Odoo to close (its check-in never punched, or refused)',
      fix: (one) =>
        `add the missing check-in${one ? '' : 's'} in Odoo; where people do not press the check-in and check-out keys, set the terminal's direction: alternate (docs/direction.md)`,
    },
  },
  {
    key: 'employee-not-found',
    test: /unknown (biometric ?)?code|unknown employee|employee not found|no (such )?employee|not registered|(code|employee)\b.*\b(not found|does not exist)/i,
    cause: { words: 'employee not found', fix: (one) => `add ${one ? 'the employee' : 'them'} in the HRMS` },
  },
  {
    key: 'employee-disabled',
    test: /\b(disabled|inactive|deactivated|blocked)\b/i,
    cause: {
      words: 'employee disabled in the HRMS',
      fix: (one) => `enable ${one ? 'the employee' : 'them'} in the HRMS if their punches count`,
    },
  },
  {
    key: 'time',
    test: /\blog ?date\b|invalid (date|time)|(date|time) format/i,
    cause: {
      words: 'punch time not accepted',
      fix: () => "check the terminal's clock and timezone (punchgate punches --history shows the HRMS's words)",
    },
  },
];

const NO_MESSAGE: Cause = { words: 'no reason given by the HRMS', fix: () => 'ask the HRMS administrator why' };
const PLACEHOLDER = '<code>';

interface Group {
  cause: Cause;
  count: number;
  dead: number;
  codes: Map<string, number>;
}

const punches = (n: number) => `${n} ${n === 1 ? 'punch' : 'punches'}`;

/** A date and time in a message (Odoo names the punch's: "a check-out at 2026-11-29 22:09:04 UTC"). */
const A_TIME = /\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?/g;

/**
 * The message with the punch's own code and times taken out, so that "Foo 1042" and "Foo 1043",
 * or the same refusal of punches at two times, are one cause (a new-user trial saw one alert line
 * per Odoo refusal, and the other causes cut off).
 */
function template(message: string, code: string): string {
  const timeless = message.replace(A_TIME, '<time>');
  if (!code) return timeless;
  const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return timeless.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), PLACEHOLDER);
}

function causeOf(message: string, code: string): { key: string; cause: Cause } {
  if (message.trim() === '') return { key: 'none', cause: NO_MESSAGE };
  const known = KNOWN.find((k) => k.test.test(message));
  if (known) return known;
  const t = template(message, code);
  return {
    key: `said:${t}`,
    cause: { words: `the HRMS said "${printable(t, QUOTE_CHARS)}"`, fix: () => 'correct what it says in the HRMS' },
  };
}

/** "code 1042", "codes 1042, 1043 and 1044", "codes 1042, ..., 1046 and 3 more" (escaped for a screen). */
function codeList(codes: Map<string, number>): string {
  const sorted = [...codes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => escapeControls(c));
  if (sorted.length === 1) return `code ${sorted[0]}`;
  if (sorted.length > CODES_SHOWN) return `codes ${firstFew(sorted, CODES_SHOWN)}`;
  return `codes ${sorted.slice(0, -1).join(', ')} and ${sorted.at(-1)}`;
}

/**
 * The command that lists a sink's refused punches with the refusals' words: `--history` (each
 * attempt's answer) is kept for the first sink alone; another sink's list shows its last answer.
 */
function refusedList(sinkFlag: string): string {
  return sinkFlag === ''
    ? '`punchgate punches --state rejected --history`'
    : `\`punchgate punches${sinkFlag} --state rejected\` (its LAST ANSWER column)`;
}

/**
 * What to run once the cause is fixed: rejected punches and given-up (dead) ones are retried apart,
 * a sink's other than the first with `--sink` (its own copy of each punch).
 */
function retryAdvice(g: Group, sinkFlag: string): string {
  const retry = `punchgate punches retry${sinkFlag}`;
  if (g.dead === 0) return `then \`${retry}\``;
  if (g.dead === g.count) return `then \`${retry} --state dead\` (given up after too many refusals)`;
  return `then \`${retry}\` and, for the ${g.dead} given up, \`${retry} --state dead\``;
}

/**
 * One alert line per cause of refusal, most punches first: how many punches, which codes (a
 * few, then how many more), and what to do. The counts are always whole: causes beyond the
 * shown ones are summed in a last line.
 */
export function refusalAlerts(rows: readonly RefusedPunches[], sink?: string): Alert[] {
  // A sink other than the first: its name first, as its other alerts say it.
  const of = sink === undefined ? '' : `sink ${sink}: `;
  const sinkFlag = sink === undefined ? '' : ` --sink ${sink}`;
  const groups = new Map<string, Group>();
  for (const r of rows) {
    const { key, cause } = causeOf(r.message, r.code);
    const g = groups.get(key) ?? { cause, count: 0, dead: 0, codes: new Map<string, number>() };
    g.count += r.count;
    if (r.state === 'dead') g.dead += r.count;
    g.codes.set(r.code, (g.codes.get(r.code) ?? 0) + r.count);
    groups.set(key, g);
  }
  const sorted = [...groups].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0])).map(([, g]) => g);
  const lines = sorted.slice(0, CAUSES_SHOWN).map((g) => {
    // One code: the placeholder of a quoted message is that code again.
    const only = g.codes.size === 1 ? escapeControls([...g.codes.keys()][0]!) : undefined;
    const words = only === undefined ? g.cause.words : g.cause.words.split(PLACEHOLDER).join(only);
    return {
      kind: 'refused',
      cause: `${of}${punches(g.count)} refused: ${words} for ${codeList(g.codes)}`,
      fix: `${g.cause.fix(only !== undefined)}, ${retryAdvice(g, sinkFlag)}`,
    };
  });
  const rest = sorted.slice(CAUSES_SHOWN);
  if (rest.length > 0) {
    const n = rest.reduce((s, g) => s + g.count, 0);
    lines.push({
      kind: 'refused',
      cause: `${of}${punches(n)} refused for ${rest.length} other ${rest.length === 1 ? 'reason' : 'reasons'}`,
      fix: `see ${refusedList(sinkFlag)}`,
    });
  }
  return lines;
}

/**
 * Punches of a sink that pairs each person's punches in order (Odoo) waiting behind a refused punch
 * of the same person (journal/held-behind-refused.ts): they are not lost, and they go in, in order,
 * once the refused one is delivered. Said beside the refusals so that a growing pending count has
 * its reason on the status page.
 */
export function heldBehindRefusedAlert(held: number, sink?: string): Alert[] {
  if (held <= 0) return [];
  const of = sink === undefined ? '' : `sink ${sink}: `;
  const sinkFlag = sink === undefined ? '' : ` --sink ${sink}`;
  return [
    {
      kind: 'held-behind-refused',
      cause: `${of}${punches(held)} ${held === 1 ? 'waits' : 'wait'} behind a refused punch of the same person (Odoo pairs each person's punches in time order)`,
      fix: `correct the refusal in Odoo, then \`punchgate punches retry${sinkFlag}\`: the refused punch goes in, then these; or ${refusedList(sinkFlag)} to see it`,
    },
  ];
}

/** How many queued punches (pending or refused) a claim that holds behind refused ones leaves out. */
export function heldBehindRefusedCount(
  queue: Pick<DeliveryQueue, 'dueCount' | 'refusedWaiting'>,
  policy: HoldPolicy | undefined,
): number {
  if (!policy) return 0;
  // Nothing refused, nothing held: no count of a backlog that may be hundreds of thousands long.
  if (queue.refusedWaiting?.() === 0) return 0;
  const held = { ignoreBackoff: true, holdBehindRefused: true, holdNothing: policy.holdNothing };
  return queue.dueCount({ ignoreBackoff: true }) - queue.dueCount(held);
}
