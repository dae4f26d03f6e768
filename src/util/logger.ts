import { pino, type Logger, type DestinationStream } from 'pino';
import { REDACTED } from './secrets.js';
import { localTime } from './local-time.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Human-readable single lines instead of JSON (for a person at a terminal). */
  pretty?: boolean;
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
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${t} ${lvl} ${String(msg ?? '')}${extra ? '  ' + extra : ''}\n`;
}

export function createLogger(opts: LoggerOptions): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: undefined,
      // `"time":"2026-11-23T13:05:09.123Z"`: UTC ISO in the JSON lines; the pretty form shows box time.
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // The pretty form is a rendering of the JSON line, nothing more.
      ...(opts.pretty ? { hooks: { streamWrite: prettyLine } } : {}),
    },
    opts.destination ?? pino.destination({ fd: 1, sync: true }),
  );
}

/** A logger that drops everything (tests and one-shot commands that print their own output). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
