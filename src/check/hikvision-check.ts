import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { HikvisionTerminalConfig } from '../config/terminals.js';
import { wallClockAt, wallClockDiffSeconds } from '../punch.js';
import { nextAuthTry, type AuthRefusal } from '../sources/hikvision/auth-gate.js';
import { END_SERIAL, refusesSerialRange, smallerEndSerial } from '../sources/hikvision/serial-range.js';
import { describeHikFault, noEventSearchFault } from '../sources/hikvision/fault.js';
import {
  defaultHikClientFactory,
  HikApiError,
  HikTlsError,
  readTerminalPassword,
  type HikClientFactory,
  type HikvisionClient,
} from '../sources/hikvision/index.js';
import type { Clock } from '../util/clock.js';
import { clockVerdict, deviceWords, refusalStopsCheck, transportWords } from './http-terminal-check.js';
import { fail, warn, type CheckResult } from './types.js';
import { describeSkew } from './zk-check.js';
import { localTime } from '../util/local-time.js';
import { boxIanaZone } from '../util/box-zone.js';

export interface HikCheckDeps {
  clock: Clock;
  /** A password refusal punchgate run recorded in the journal, if any. */
  refusal?: AuthRefusal;
  factory?: HikClientFactory;
  env?: NodeJS.ProcessEnv;
}

/** The SHA-256 fingerprint of the certificate a TLS server presents (nothing is sent), or undefined. */
export function presentedFingerprint(url: string, timeoutMs: number): Promise<string | undefined> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const socket = tlsConnect({
      host,
      port: Number(u.port || 443),
      ...(isIP(host) ? {} : { servername: host }),
      // Only to read the certificate for the admin to verify and pin; the connection is closed at once.
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    const done = (fp: string | undefined) => {
      socket.destroy();
      resolve(fp);
    };
    socket.once('secureConnect', () => done(socket.getPeerCertificate().fingerprint256));
    socket.once('error', () => done(undefined));
    socket.once('timeout', () => done(undefined));
  });
}

/**
 * Reaches one Hikvision terminal as a poll would, changing nothing: the address, TLS (with the
 * pin or CA), the password, the device's identity, its clock, and that the event search works
 * (by serial number, or by time window on firmware without serial filters).
 */
export async function checkHikvisionTerminal(
  cfg: HikvisionTerminalConfig,
  index: number,
  deps: HikCheckDeps,
): Promise<CheckResult> {
  const name = `terminal ${cfg.name}`;
  const key = `terminals[${index}]`;
  const zone = cfg.timezone ?? boxIanaZone();
  let client: HikvisionClient | undefined;
  try {
    const pw = readTerminalPassword(cfg, deps.env);
    const now = deps.clock.now();
    const next = nextAuthTry(deps.refusal, pw.changedAt, now);
    if (deps.refusal && next !== undefined && next > now) {
      return refusalStopsCheck(
        name,
        cfg.name,
        deps.refusal,
        next,
        pw.fromEnv
          ? `set the right password in ${pw.from}; punchgate tries it again at ${localTime(next)}`
          : `put the right password in ${key}.passwordFile (${pw.from}): punchgate run and check try it as soon as the file changes`,
      );
    }
    client = await (deps.factory ?? defaultHikClientFactory)(cfg, pw.password);
    const info = await client.deviceInfo();
    const time = await client.getTime();
    const skew = wallClockDiffSeconds(time.wallClock, wallClockAt(deps.clock.now(), cfg.timezone));
    const users = await client.users.count().catch(() => null);
    const search = await eventSearch(client);
    await client.http.close();
    if (typeof search === 'object') {
      // The poll reads such a terminal by its posts alone (listen: true), or cannot read it at all.
      const f = noEventSearchFault(cfg, key, search.none);
      if (!cfg.listen) return fail(name, f.cause, f.fix);
      const facts = [
        deviceWords(info.serialNumber, info.model, info.firmwareVersion),
        `clock ${describeSkew(skew)} (${zone})`,
      ];
      return warn(name, `${facts.join(', ')}; ${f.cause}`, f.fix);
    }

    const facts = [
      `${client.peer}${transportWords(cfg.url.startsWith('https:'), Boolean(cfg.tlsFingerprint), Boolean(cfg.caFile))}`,
      deviceWords(info.serialNumber, info.model, info.firmwareVersion),
      ...(users !== null ? [`${users} user${users === 1 ? '' : 's'}`] : []),
      `event search ${search === 'serial' ? 'by serial number' : 'by time window (this firmware has no serial-number filters)'}`,
      `clock ${describeSkew(skew)} (${zone})`,
    ].join(', ');
    return clockVerdict(
      name,
      facts,
      skew,
      cfg.skewThresholdSeconds,
      cfg.syncClock
        ? `punchgate run sets the terminal's clock at its next poll (${key}.syncClock is on)`
        : `set the terminal's clock (or enable NTP on it), or set ${key}.syncClock: true so that punchgate run sets it; if the difference is whole hours, set ${key}.timezone to the zone the terminal's clock shows (now ${zone})`,
    );
  } catch (e) {
    client?.http.destroy();
    return describeFailure(e, cfg, name, key);
  }
}

/**
 * Which event search the firmware answers: by serial number, or only by time window. Asking for
 * serial numbers no terminal reaches tells the two apart: firmware that honours the filter finds
 * nothing, firmware that ignores it sends its log anyway (and one that refuses it says so).
 */
async function eventSearch(client: HikvisionClient): Promise<'serial' | 'time' | { none: string }> {
  // A refused range is tried again with a smaller end, as the poll does (serial-range.ts).
  for (let end = END_SERIAL; ;) {
    try {
      const page = await client.eventPage(
        { major: 5, minor: 0, beginSerialNo: end - 1, endSerialNo: end, maxResults: 1 },
        'punchgate-check',
        0,
      );
      if (page.rows.length === 0) return 'serial';
      break;
    } catch (e) {
      const smaller = refusesSerialRange(e) ? await smallerEndSerial(client, end) : undefined;
      if (smaller !== undefined) {
        end = smaller;
        continue;
      }
      if (!(e instanceof HikApiError) || !(e.httpStatus === 400 || e.unsupported)) throw e;
      break;
    }
  }
  try {
    await client.eventPage(
      { major: 5, minor: 0, startTime: '2000-01-01T00:00:00', endTime: '2037-12-31T23:59:59', maxResults: 1 },
      'punchgate-check',
      0,
    );
    return 'time';
  } catch (e) {
    // Firmware that only posts its events: no search at all (the caller says what that means).
    if (e instanceof HikApiError && e.unsupported) return { none: e.message };
    if (e instanceof HikApiError) {
      throw new HikApiError(
        `the device does not answer the event search (${e.message})`,
        e.httpStatus,
        'noEventSearch',
      );
    }
    throw e;
  }
}

async function describeFailure(
  e: unknown,
  cfg: HikvisionTerminalConfig,
  name: string,
  key: string,
): Promise<CheckResult> {
  const f = describeHikFault(e, cfg, key);
  // A certificate not trusted, without a pin: read the one the device presents, for the admin to compare.
  if (e instanceof HikTlsError && !e.fingerprint) {
    const fp = await presentedFingerprint(cfg.url, cfg.timeoutMs);
    if (fp)
      return fail(
        name,
        f.cause,
        `its certificate's fingerprint is sha256:${fp}: compare it with the one the device shows (its web page, HTTPS settings), then set ${key}.tlsFingerprint: "sha256:${fp}"`,
      );
  }
  return fail(name, f.cause, f.fix);
}
