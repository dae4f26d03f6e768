import type { TerminalCommandResult } from '../../journal/types.js';
import { keepableInfo } from './device-info.js';

/**
 * The body of `POST /iclock/devicecmd`: one `ID=<id>&Return=<code>&CMD=<what>` line per
 * command result; lines that follow one and do not start with `ID=` belong to it (INFO's
 * key=value content).
 */
export function parseDeviceCmd(body: string): TerminalCommandResult[] {
  const out: (TerminalCommandResult & { lines: string[] })[] = [];
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.startsWith('ID=')) {
      const r = resultLine(line);
      if (r) out.push({ ...r, lines: [] });
      continue;
    }
    if (line.trim() !== '' && out.length > 0) out.at(-1)!.lines.push(line);
  }
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
