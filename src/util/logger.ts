import { pino, type Logger, type DestinationStream } from 'pino';
import type { Secrets } from './secrets.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Human-readable single lines instead of JSON (for a person at a terminal). */
  pretty?: boolean;
  /** Where lines go; default stdout (journald picks them up under systemd). */
  destination?: DestinationStream;
  secrets: Secrets;
}

/** Keys that may hold a secret anywhere in a log object. */
const REDACT_PATHS = [
  'token',
  '*.token',
  'commKey',
  '*.commKey',
  'password',
  '*.password',
  '*.*.commKey',
  'authorization',
  'headers.authorization',
  '*.headers.authorization',
  'Authorization',
  'headers.Authorization',
  '*.headers.Authorization',
];

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** One readable line from one pino JSON line: `12:00:01 INFO  message key=value ...`. */
export function prettyLine(json: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const { time, level, msg, pid: _pid, hostname: _h, ...rest } = o;
  const t = typeof time === 'number' ? new Date(time).toISOString().slice(11, 19) : '';
  const lvl = (LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(5);
  const extra = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${t} ${lvl} ${String(msg ?? '')}${extra ? '  ' + extra : ''}\n`;
}

export function createLogger(opts: LoggerOptions): Logger {
  const { secrets } = opts;
  return pino(
    {
      level: opts.level ?? 'info',
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: {
        // Last line of defence: scrub known secret values from the serialized line.
        streamWrite: (line: string) => {
          const clean = secrets.scrub(line);
          return opts.pretty ? prettyLine(clean) : clean;
        },
      },
    },
    opts.destination ?? pino.destination({ fd: 1, sync: true }),
  );
}

/** A logger that drops everything (tests and one-shot commands that print their own output). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
