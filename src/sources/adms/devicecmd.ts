import type { TerminalCommandResult } from '../../journal/types.js';
import { uploadLine } from './upload-line.js';
import { keepableInfo } from './device-info.js';

/**
 * The body of `POST /iclock/devicecmd`: one `ID=<id>&Return=<code>&CMD=<what>` line per
 * command result; lines that follow one and do not start with `ID=` belong to it (INFO's
 * key=value content). Some firmware spreads one result over lines (`ID=3\nReturn=0\nCMD=INFO`):
 * an `ID=` line alone takes the `Return=` and `CMD=` lines that follow it.
 */
export function parseDeviceCmd(body: string): TerminalCommandResult[] {
  const out: (TerminalCommandResult & { lines: string[] })[] = [];
  /** An `ID=` line alone, waiting for its `Return=` (and `CMD=`). */
  let spread: { id: string; returnCode?: string; cmd: string } | undefined;
  const closeSpread = () => {
    if (spread?.returnCode !== undefined) {
      const r = resultLine(`ID=${spread.id}&Return=${spread.returnCode}&CMD=${spread.cmd}`);
      if (r) out.push({ ...r, lines: [] });
    }
    spread = undefined;
  };
  for (const raw of body.split('\n')) {
    const line = uploadLine(raw);
    if (line.startsWith('ID=')) {
      closeSpread();
      if (!line.includes('&')) {
        spread = { id: line.slice(3).trim(), cmd: '' };
        continue;
      }
      const r = resultLine(line);
      if (r) out.push({ ...r, lines: [] });
      continue;
    }
    if (spread && line.startsWith('Return=') && spread.returnCode === undefined) {
      spread.returnCode = line.slice(7).trim();
      continue;
    }
    if (spread && line.startsWith('CMD=') && spread.cmd === '') {
      spread.cmd = line.slice(4).trim();
      closeSpread();
      continue;
    }
    if (spread) closeSpread();
    if (line.trim() !== '' && out.length > 0) out.at(-1)!.lines.push(line);
  }
  closeSpread();
  return out.map(({ lines, ...r }) => {
    const content = keepableInfo(lines);
    return content ? { ...r, content } : r;
  });
}

/** `ID=12&Return=0&CMD=DATA`; CMD (the last field) may itself contain `&` or `=`. */
function resultLine(line: string): Omit<TerminalCommandResult, 'content'> | undefined {
  const cmdAt = line.indexOf('&CMD=');
  const head = cmdAt >= 0 ? line.slice(0, cmdAt) : line;
  const cmd = cmdAt >= 0 ? line.slice(cmdAt + 5) : '';
  const kv = new Map(
    head.split('&').map((p) => {
      const eq = p.indexOf('=');
      return [eq < 0 ? p : p.slice(0, eq), eq < 0 ? '' : p.slice(eq + 1)] as const;
    }),
  );
  const id = kv.get('ID') ?? '';
  const ret = kv.get('Return') ?? '';
  if (!/^[A-Za-z0-9]{1,16}$/.test(id) || !/^-?\d{1,6}$/.test(ret)) return undefined;
  return { id, returnCode: Number(ret), cmd: cmd.slice(0, 64) };
}
