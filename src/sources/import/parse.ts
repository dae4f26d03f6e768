import { isLogTime, type Punch } from '../../punch.js';
import { splitCsvLine } from '../../util/csv-line.js';

/** A line that could not be read, with its 1-based line number. */
export interface BadLine {
  line: number;
  reason: string;
  text: string;
}

export interface ParsedFile {
  format: 'attlog' | 'csv';
  punches: Punch[];
  bad: BadLine[];
}

/** Accepts `YYYY-MM-DD HH:mm:ss`, and the `T` and `/` variants spreadsheets produce. */
function normaliseTime(s: string): string {
  return s
    .trim()
    .replace('T', ' ')
    .replace(/^(\d{4})\/(\d{2})\/(\d{2})/, '$1-$2-$3');
}

function checkCode(code: string): string | undefined {
  if (!code) return 'empty biometric code';
  if (code.length > 64) return 'biometric code longer than 64 characters';
  return undefined;
}

/**
 * ZKTeco USB export (`*_attlog.dat`): tab-separated PIN, date-time, verify type,
 * punch state, work code...; the PIN is often padded with spaces.
 */
export function parseAttlog(text: string, terminal: string, device: string): ParsedFile {
  const punches: Punch[] = [];
  const bad: BadLine[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const f = raw.split('\t').map((s) => s.trim());
    const code = f[0] ?? '';
    const logTime = normaliseTime(f[1] ?? '');
    const reason = checkCode(code) ?? (isLogTime(logTime) ? undefined : `bad date-time "${f[1] ?? ''}"`);
    if (reason) return void bad.push({ line: i + 1, reason, text: raw });
    const num = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);
    punches.push({ terminal, device, biometricCode: code, logTime, verifyType: num(f[2]), punchState: num(f[3]) });
  });
  return { format: 'attlog', punches, bad };
}

/** CSV with a header `biometriccode,logDate[,terminal]` (any column order, case-insensitive). */
export function parseCsv(
  text: string,
  terminalFor: (name: string | undefined) => { terminal: string; device: string },
): ParsedFile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = splitCsvLine(lines[0] ?? '').map((h) => h.trim().toLowerCase());
  const iCode = header.indexOf('biometriccode');
  const iTime = header.indexOf('logdate');
  const iTerm = header.indexOf('terminal');
  if (iCode < 0 || iTime < 0) {
    return {
      format: 'csv',
      punches: [],
      bad: [{ line: 1, reason: 'header must name the columns biometriccode and logDate', text: lines[0] ?? '' }],
    };
  }
  const punches: Punch[] = [];
  const bad: BadLine[] = [];
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') continue;
    const f = splitCsvLine(raw).map((c) => c.trim());
    const code = f[iCode] ?? '';
    const logTime = normaliseTime(f[iTime] ?? '');
    const reason = checkCode(code) ?? (isLogTime(logTime) ? undefined : `bad logDate "${f[iTime] ?? ''}"`);
    if (reason) {
      bad.push({ line: i + 1, reason, text: raw });
      continue;
    }
    const t = terminalFor(iTerm >= 0 && f[iTerm] ? f[iTerm] : undefined);
    punches.push({ ...t, biometricCode: code, logTime });
  }
  return { format: 'csv', punches, bad };
}

/** Picks the format from the name, then from the first line. */
export function detectFormat(fileName: string, text: string): 'attlog' | 'csv' {
  if (/\.dat$/i.test(fileName)) return 'attlog';
  if (/\.csv$/i.test(fileName)) return 'csv';
  const first = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return /biometriccode/i.test(first) ? 'csv' : 'attlog';
}
