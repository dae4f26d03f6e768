import { wallClockAt } from '../../punch.js';

/**
 * The option block a push terminal fetches at start (`GET /iclock/cdata?SN=..&options=all`):
 * where to resume uploading (the stamps saved with the last durable upload), how often to
 * poll, what to send. Lines are LF-separated `key=value`, after `GET OPTION FROM: <SN>`.
 */
export interface OptionSettings {
  delay: number;
  errorDelay: number;
  realtime: boolean;
}

/**
 * What the terminal is asked to upload: punches and user records. Not photos, fingerprints or
 * faces: punchgate keeps no biometric data it does not need.
 */
export const TRANS_FLAG = 'TransData AttLog\tOpLog\tEnrollUser\tChgUser';
/** The same as the older bit string: 1 AttLog, 2 OpLog, 3 AttPhoto, 4 EnrollUser, 5 ChgUser, ... */
const TRANS_FLAG_BITS = '1101100000';
export const SERVER_VERSION = '2.4.1';

/**
 * `TimeZone=`: the terminal clock's UTC offset now, in whole hours, or in minutes for half- and
 * quarter-hour zones (e.g. 330 for India), as the protocol asks.
 */
export function timeZoneOption(now: number, timeZone?: string): number {
  return timeZoneOptionOf(utcOffsetMinutes(now, timeZone));
}

/** `TimeZone=` for an offset in minutes east of UTC. */
export const timeZoneOptionOf = (minutes: number): number => (minutes % 60 === 0 ? minutes / 60 : minutes);

/** The UTC offset of the terminal's clock now, in minutes (the gateway's zone when none is set). */
export function utcOffsetMinutes(now: number, timeZone?: string): number {
  const wall = wallClockAt(now, timeZone);
  const asUtc = Date.parse(`${wall.replace(' ', 'T')}Z`);
  return Math.round((asUtc - Math.floor(now / 1000) * 1000) / 60_000);
}

/** An offset in minutes east of UTC as the log and the status say it: `UTC+01:00`. */
export function offsetLabel(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const m = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/**
 * Which `TransFlag` form a firmware reads. The attendance document advises the string form
 * (`TransData AttLog\tOpLog...`), which PushSDK 2.x firmware reads; PushSDK 3.x firmware was
 * seen sending nothing when given it, and reads the bit string, as does firmware that sends no
 * `pushver` at all.
 */
export function wantsStringTransFlag(pushVersion: string | undefined): boolean {
  const major = /^(\d+)/.exec(pushVersion ?? '')?.[1];
  return major !== undefined && Number(major) < 3;
}

/**
 * The two dialects of the attendance push protocol. PUSH 2.0.1 firmware (it sends no `pushver`,
 * or one below 2.2) reads the option block's `Stamp=`, `OpStamp=`, `PhotoStamp=` and a bit-string
 * `TransFlag`, and wants uploads answered a bare `OK` (the PUSH 2.0.1 communication protocol
 * document; ZKTeco's own iclock server answers a handshake without `pushver` the same way). Newer
 * firmware (the 2.2.14 default of the current document, up to 2.4.x) reads `ATTLOGStamp=` and the
 * rest, and `OK:<records>` after an upload.
 */
export type PushDialect = '2.0.1' | 'current';

export function dialectOf(pushVersion: string | undefined): PushDialect {
  const m = /^(\d+)(?:\.(\d+))?/.exec(pushVersion ?? '');
  if (!m) return '2.0.1';
  const [major, minor] = [Number(m[1]), Number(m[2] ?? 0)];
  return major < 2 || (major === 2 && minor < 2) ? '2.0.1' : 'current';
}

/** An upload's answer: the records processed (`OK:n`), or a bare `OK` to PUSH 2.0.1 firmware. */
export const uploadAnswer = (dialect: PushDialect, processed: number): string =>
  dialect === '2.0.1' ? 'OK' : `OK:${processed}`;

/** A saved stamp, or 0 (the protocol's "upload everything you have") when none is saved yet. */
const stampOr0 = (s: string | undefined) => s ?? '0';

export function optionBlock(args: {
  serial: string;
  stamps: Record<string, string>;
  settings: OptionSettings;
  timeZone: number;
  /** The terminal's `pushver=`; older firmware (none sent) reads the legacy names too. */
  pushVersion: string | undefined;
  /** The dialect to answer in (default: the one `pushVersion` says). */
  dialect?: PushDialect;
}): string {
  const { stamps, settings } = args;
  if ((args.dialect ?? dialectOf(args.pushVersion)) === '2.0.1') return legacyOptionBlock(args);
  const lines = [
    `GET OPTION FROM: ${args.serial}`,
    `ATTLOGStamp=${stampOr0(stamps.ATTLOG)}`,
    `OPERLOGStamp=${stampOr0(stamps.OPERLOG)}`,
    `ATTPHOTOStamp=${stampOr0(stamps.ATTPHOTO)}`,
    `ErrorDelay=${settings.errorDelay}`,
    `Delay=${settings.delay}`,
    'TransTimes=00:00;12:00',
    'TransInterval=1',
    `TransFlag=${wantsStringTransFlag(args.pushVersion) ? TRANS_FLAG : TRANS_FLAG_BITS}`,
    `TimeZone=${args.timeZone}`,
    `Realtime=${settings.realtime ? 1 : 0}`,
    'Encrypt=None',
    `ServerVer=${SERVER_VERSION}`,
    `PushProtVer=${SERVER_VERSION}`,
  ];
  if (!args.pushVersion) {
    lines.push(`Stamp=${stampOr0(stamps.ATTLOG)}`, `OpStamp=${stampOr0(stamps.OPERLOG)}`);
    lines.push(`PhotoStamp=${stampOr0(stamps.ATTPHOTO)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * The option block of PUSH 2.0.1: the stamps under their old names and the bit-string TransFlag
 * (1 AttLog, 2 OpLog, 3 AttPhoto, 4 EnrollUser, 5 ChgUser...: punches and user records, no
 * photos). No ServerVer/PushProtVer: that firmware negotiates no version.
 */
function legacyOptionBlock(args: {
  serial: string;
  stamps: Record<string, string>;
  settings: OptionSettings;
  timeZone: number;
}): string {
  const { stamps, settings } = args;
  return (
    [
      `GET OPTION FROM: ${args.serial}`,
      `Stamp=${stampOr0(stamps.ATTLOG)}`,
      `OpStamp=${stampOr0(stamps.OPERLOG)}`,
      `PhotoStamp=${stampOr0(stamps.ATTPHOTO)}`,
      `ErrorDelay=${settings.errorDelay}`,
      `Delay=${settings.delay}`,
      'TransTimes=00:00;12:00',
      'TransInterval=1',
      `TransFlag=${TRANS_FLAG_BITS}`,
      `TimeZone=${args.timeZone}`,
      `Realtime=${settings.realtime ? 1 : 0}`,
      'Encrypt=0',
    ].join('\n') + '\n'
  );
}

/**
 * The answer to newer firmware's `GET /iclock/push`: the same settings under the names of the
 * newer protocol (RequestDelay, TransTables...).
 */
export function pushBlock(args: { settings: OptionSettings; timeZone: number; sessionId: string }): string {
  return pushLines(args).join('\n') + '\n';
}

/**
 * The answer to a registered Security PUSH device's handshake: `registry=ok`, its RegistryCode,
 * and the configuration of `/iclock/push` at once (as ZKTeco's own servers answer it).
 */
export function registeredBlock(args: {
  registryCode: string;
  settings: OptionSettings;
  timeZone: number;
  sessionId: string;
}): string {
  return ['registry=ok', `RegistryCode=${args.registryCode}`, ...pushLines(args)].join('\n') + '\n';
}

/** Security PUSH version the answers name. */
export const SECURITY_SERVER_VERSION = '3.1.2';

function pushLines(args: { settings: OptionSettings; timeZone: number; sessionId: string }): string[] {
  const { settings } = args;
  return [
    `ServerVersion=${SECURITY_SERVER_VERSION}`,
    'ServerName=punchgate',
    `PushProtVer=${SECURITY_SERVER_VERSION}`,
    `PushVersion=${SECURITY_SERVER_VERSION}`,
    `ErrorDelay=${settings.errorDelay}`,
    `RequestDelay=${settings.delay}`,
    'TransTimes=00:00;12:00',
    'TransInterval=1',
    // Transactions (rtlog) and users; Realtime=1 sends each pass as it happens.
    'TransTables=User Transaction',
    `Realtime=${settings.realtime ? 1 : 0}`,
    `SessionID=${args.sessionId}`,
    `TimeoutSec=${settings.errorDelay}`,
    `TimeZone=${args.timeZone}`,
  ];
}
