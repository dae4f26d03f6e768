import type { PushSimUser } from './types.js';

/** What the simulated terminal does with one command from the server. */
export type CommandEffect =
  | { kind: 'info' }
  | { kind: 'check' }
  | { kind: 'log' }
  | { kind: 'reboot' }
  | { kind: 'query-attlog'; from: string; to: string }
  | { kind: 'query-users' }
  | { kind: 'update-user'; user: PushSimUser }
  | { kind: 'delete-user'; pin: string }
  | { kind: 'authorize-user'; pin: string }
  | { kind: 'unsupported' };

function fields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of text.split('\t')) {
    const eq = f.indexOf('=');
    if (eq > 0) out.set(f.slice(0, eq).trim(), f.slice(eq + 1));
  }
  return out;
}

/** `C:<id>:<command>` lines of a getrequest answer. */
export function parseCommands(body: string): { id: string; command: string }[] {
  const out: { id: string; command: string }[] = [];
  for (const line of body.split('\n')) {
    const m = /^C:([^:]{1,16}):(.*)$/.exec(line.replace(/\r$/, ''));
    if (m) out.push({ id: m[1]!, command: m[2]! });
  }
  return out;
}

/**
 * What a command does on a terminal of that protocol. As on real firmware, the user commands of
 * the other protocol are unsupported (`Return=-1002`): Security PUSH firmware knows the `user`
 * table (`Pin=`, `CardNo=`, `Privilege=`), attendance firmware `USERINFO` (`PIN=`, `Card=`, `Pri=`).
 */
export function commandEffect(command: string, protocol: 'attendance' | 'security' = 'attendance'): CommandEffect {
  if (command === 'INFO') return { kind: 'info' };
  if (command === 'CHECK') return { kind: 'check' };
  if (command === 'LOG') return { kind: 'log' };
  if (command === 'REBOOT') return { kind: 'reboot' };
  const m = /^DATA QUERY ATTLOG (.*)$/.exec(command);
  if (m) {
    const f = fields(m[1]!);
    return { kind: 'query-attlog', from: f.get('StartTime') ?? '', to: f.get('EndTime') ?? '9999' };
  }
  return protocol === 'security' ? securityUserEffect(command) : attendanceUserEffect(command);
}

function attendanceUserEffect(command: string): CommandEffect {
  if (/^DATA QUERY USERINFO\b/.test(command)) return { kind: 'query-users' };
  let m = /^DATA UPDATE USERINFO (.*)$/.exec(command);
  if (m) {
    const f = fields(m[1]!);
    return updateOf(f.get('PIN'), f.get('Name'), f.get('Pri'), f.get('Card'));
  }
  m = /^DATA DELETE USERINFO PIN=([^\t]*)/.exec(command);
  if (m) return { kind: 'delete-user', pin: m[1]!.trim() };
  return { kind: 'unsupported' };
}

function securityUserEffect(command: string): CommandEffect {
  if (/^DATA QUERY tablename=user,/.test(command)) return { kind: 'query-users' };
  let m = /^DATA UPDATE user (.*)$/.exec(command);
  if (m) {
    const f = fields(m[1]!);
    return updateOf(f.get('Pin'), f.get('Name'), f.get('Privilege'), f.get('CardNo'));
  }
  m = /^DATA UPDATE userauthorize Pin=([^\t]*)/.exec(command);
  if (m) return { kind: 'authorize-user', pin: m[1]!.trim() };
  m = /^DATA DELETE user Pin=([^\t]*)/.exec(command);
  if (m) return { kind: 'delete-user', pin: m[1]!.trim() };
  return { kind: 'unsupported' };
}

function updateOf(
  pin: string | undefined,
  name: string | undefined,
  pri: string | undefined,
  card: string | undefined,
): CommandEffect {
  if (!pin) return { kind: 'unsupported' };
  const privilege = Number(pri ?? 0);
  return {
    kind: 'update-user',
    user: { pin, name: name ?? '', privilege: Number.isInteger(privilege) ? privilege : 0, card: card ?? '' },
  };
}

/** The first line of a `devicecmd` result: `ID=..&Return=..&CMD=..` (CMD is the command's first word). */
export const resultLine = (id: string, returnCode: number, command: string) =>
  `ID=${id}&Return=${returnCode}&CMD=${command.split(' ')[0]}`;

export const userLine = (u: PushSimUser) =>
  `USER PIN=${u.pin}\tName=${u.name}\tPri=${u.privilege}\tPasswd=\tCard=${u.card}\tGrp=1\tTZ=0000000100000000\tVerify=0`;
