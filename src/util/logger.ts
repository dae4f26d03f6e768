import { pino, type Logger, type DestinationStream } from 'pino';
import { REDACTED } from './secrets.js';
import { escapeControls, safeJson, safeJsonText } from './terminal-text.js';
import { localTime } from './local-time.js';
import { isJournalStream, PRIORITY, priorityOfLevel, withPriority } from './journald.js';

/**
 * The log format for a process whose log goes to `fd` (1: stdout): as asked (`--log-format`,
 * `--pretty`), else lines for systemd's journal when that fd is the journal's stream, else JSON.
 */
export function logFormatFor(fd: number, asked: { format?: string; pretty?: boolean }, env = process.env): LogFormat {
  if (asked.format === 'json' || asked.format === 'text' || asked.format === 'journal') return asked.format;
  if (asked.pretty) return 'text';
  return isJournalStream(fd, env) ? 'journal' : 'json';
}

export type { Logger } from 'pino';

/** How log lines are written: JSON (containers, `--log-format json`), readable lines, or lines for systemd's journal. */
export type LogFormat = 'json' | 'text' | 'journal';

export interface LoggerOptions {
  level?: string;
  /** Human-readable single lines instead of JSON (for a person at a terminal); `format: 'text'`. */
  pretty?: boolean;
  /** Wins over `pretty`; default json. */
  format?: LogFormat;
  /** Where lines go; default stdout (journald picks them up under systemd). */
  destination?: DestinationStream;
}

/**
 * Keys that may hold a secret, at the top of a log object and one or two levels down (a
 * terminal's config, an error's options, request headers). Redaction is by key, never by
 * searching the serialized line: a 4-digit comm key searched for as text would turn
 * timestamps and paths into markers and the lines into invalid JSON. Text from outside
 * (HRMS messages, terminal strings) is scrubbed where it is created, not here.
 */
const SECRET_KEYS = [
  'token',
  'commKey',
  'password',
  'passwd',
  'secret',
  'credentials',
  'proxyCredentials',
  'authorization',
  'Authorization',
  'proxy-authorization',
  'Proxy-Authorization',
];
const REDACT_PATHS = SECRET_KEYS.map((k) => (/^\w+$/.test(k) ? `.${k}` : `["${k}"]`)).flatMap((k) => [
  k.replace(/^\./, ''),
  `*${k}`,
  `*.*${k}`,
]);

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/**
 * A field's value in a readable line: text with its control and invisible characters written out
 * (a CR, LF or NEL from a device would forge a line of its own in the journal; a CSI, a bidi
 * override would act on the admin's screen), anything else as JSON with the same escapes.
 */
const shown = (v: unknown) => (typeof v === 'string' ? escapeControls(v) : safeJson(v));
/**
 * The message, as one line: its line breaks written out (`\x0a`) like every other control. A
 * message quotes what terminals and servers said (a device's error text, an HRMS's words), and
 * a line break kept there started an entry of its own in the journal, at the message's priority:
 * a device could write `punchgate: journal ... DAMAGED` as a line of punchgate's own (found by an
 * adversarial trial: a Hikvision answer's statusString). punchgate writes no message of several lines.
 */
const oneLine = (text: string) => escapeControls(text);

/** One readable line from one pino JSON line: `2026-11-23 14:05:09 +01:00 INFO  message key=value ...` (box time, see localTime). */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { time, level, msg, pid: _pid, hostname: _h, ...rest } = o;
  const ms = typeof time === 'string' ? Date.parse(time) : typeof time === 'number' ? time : NaN;
  const t = Number.isNaN(ms) ? '' : localTime(ms);
  const lvl = (LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(5);
  const extra = Object.entries(rest)
    .map(([k, v]) => `${k}=${shown(v)}`)
    .join(' ');
  return `${t} ${lvl} ${oneLine(String(msg ?? ''))}${extra ? '  ' + extra : ''}\n`;
}

/**
 * One line for systemd's journal from one pino JSON line: `<4>terminal gate-2: no answer ...`. The
 * priority prefix is what the journal reads (journalctl -p); the journal adds the time itself. The
 * message is the plain line an admin reads; fields follow as `key=value` only where they add to it:
 * a field whose value the message already says is left out, and at info (the punch-by-punch
 * narrative) so are numbers (the message counts in words), so that these lines read as docs/operate.md
 * shows them. Secrets are redacted in the JSON line already (by key), before this rendering.
 */
export function journalLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return withPriority(PRIORITY.info, json);
  }
  const { time: _t, level, msg, pid: _pid, hostname: _h, ...rest } = o;
  const lvl = Number(level);
  const text = String(msg ?? '');
  const extra = Object.entries(rest)
    .filter(([, v]) => v !== null && v !== undefined && v !== '' && v !== 0 && v !== false)
    .filter(([, v]) => !(lvl === 30 && typeof v === 'number'))
    .filter(([, v]) => !((typeof v === 'string' || typeof v === 'number') && text.includes(String(v))))
    .map(([k, v]) => `${k}=${shown(v)}`)
    .join(' ');
  return withPriority(priorityOfLevel(lvl), `${oneLine(text)}${extra ? `  ${extra}` : ''}`);
}

export function createLogger(opts: LoggerOptions): Logger {
  const format = opts.format ?? (opts.pretty ? 'text' : 'json');
  const render = format === 'text' ? prettyLine : format === 'journal' ? journalLine : undefined;
  return pino(
    {
      level: opts.level ?? 'info',
      base: undefined,
      // `"time":"2026-11-23T13:05:09.123Z"`: UTC ISO in the JSON lines; the pretty form shows box time.
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // The text and journal forms are renderings of the JSON line, nothing more. The JSON line
      // itself carries no raw C1 control, DEL, bidi override or invisible character (pino's
      // serializer escapes C0 only): JSON's own escapes, which read back as the same text.
      hooks: { streamWrite: render ?? safeJsonText },
    },
    opts.destination ?? pino.destination({ fd: 1, sync: true }),
  );
}

/** A logger that drops everything (tests and one-shot commands that print their own output). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
