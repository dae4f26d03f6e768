/**
 * `punchgate sim hikvision`: runs the Hikvision access-control terminal simulator (ISAPI) until
 * SIGINT/SIGTERM. Needs no punchgate config file.
 */
import { InvalidArgumentError, type Command } from 'commander';
import {
  BAD_EVENT,
  DEFAULT_HIK_PASSWORD,
  employeeNoOf,
  generateEvents,
  startHikvisionSim,
  type HikFirmware,
  type JsonLayout,
  type SearchFault,
  type SerialFilterSupport,
  type StreamFault,
} from '../../sim/hikvision/index.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { seededRandom } from '../../util/seeded-random.js';
import { action, simCommand, withConsoleIo } from '../common.js';
import { int, oneOf, seconds } from '../option-values.js';
import {
  givenPassword,
  listenOrTempfail,
  readSimFile,
  tickUntilStopped,
  withListenAndAccount,
} from '../sim-options.js';

interface SimHikvisionOptions {
  host: string;
  port: number;
  username: string;
  password?: string;
  passwordFile?: string;
  serial?: string;
  events?: number;
  users: number;
  eventEvery?: number;
  pageCap: number;
  /** false: --no-serial-filter. */
  serialFilter: SerialFilterSupport | false;
  lockoutAfter: number;
  lockoutMinutes: number;
  clockOffset: number;
  utcOffset?: string;
  tlsCert?: string;
  tlsKey?: string;
  seed: number;
  failWriteAfter?: number;
  endSerialMax?: number;
  advertisedEndSerial: number;
  xmlDeviceInfo?: boolean;
  jsonLayout?: JsonLayout;
  streamReplay?: boolean;
  streamBareLf?: boolean;
  realFirmware?: boolean;
  searchFault?: SearchFault;
  hugePageMb: number;
  endlessUserSearch?: boolean;
  /** false with --no-event-search: the event search is refused (notSupport), as on terminals that only post. */
  eventSearch: boolean;
  streamFault?: StreamFault;
  badEvent?: boolean;
  httpHost?: string;
  listenFormat?: 'json' | 'multipart' | 'xml';
  listenPictureKb: number;
  listenFrom?: string;
}

function utcOffset(v: string): string {
  if (!/^[+-]\d{2}:\d{2}$/.test(v)) throw new InvalidArgumentError('expected an offset such as +01:00 or -05:00');
  return v;
}

function serialFilter(v: string): SerialFilterSupport {
  if (v !== 'yes' && v !== 'ignore' && v !== 'refuse') throw new InvalidArgumentError('expected yes, ignore or refuse');
  return v;
}

/** The box's current UTC offset, `+01:00`. */
function localOffset(): string {
  const m = -new Date().getTimezoneOffset();
  const a = Math.abs(m);
  return `${m < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

export function registerSimHikvision(program: Command): void {
  withListenAndAccount(
    simCommand(program)
      .command('hikvision')
      .description('simulate a Hikvision access-control terminal (ISAPI over HTTP or HTTPS, Digest authentication)'),
    { port: 8064, account: 'the device account', username: 'admin', defaultPassword: DEFAULT_HIK_PASSWORD },
  )
    .option('--serial <sn>', 'serial number (deviceInfo serialNumber)')
    .option('--events <n>', 'generate N authentication passes, with door events and failures around them', int(0))
    .option('--users <n>', 'people the generated events come from', int(1), 20)
    .option('--event-every <seconds>', 'add a pass (and its door events) every SECONDS', seconds)
    .option('--page-cap <n>', 'rows per search page at most, whatever is asked', int(1, 1000), 30)
    .option(
      '--serial-filter <mode>',
      'serial-number filters: yes, ignore (old firmware) or refuse',
      serialFilter,
      'yes',
    )
    .option('--no-serial-filter', 'same as --serial-filter ignore')
    .option('--lockout-after <n>', 'wrong passwords within 30 min that lock the account', int(1), 5)
    .option('--lockout-minutes <m>', 'how long the account stays locked', int(1), 30)
    .option('--clock-offset <seconds>', 'device clock minus the box clock', int(-100_000_000), 0)
    .option('--utc-offset <offset>', "the device's UTC offset (default the box's)", utcOffset)
    .option('--tls-cert <file>', 'serve HTTPS with this certificate (PEM)')
    .option('--tls-key <file>', 'and this key (PEM)')
    .option('--seed <n>', 'same seed, same generated events', int(0), 1)
    .option(
      '--fail-write-after <n>',
      'after N user writes (UserInfo, CardInfo), every later one fails (HTTP 500)',
      int(0),
    )
    .option('--end-serial-max <n>', 'refuse an endSerialNo above N (400 badJsonContent naming endSerialNo)', int(1))
    .option('--advertised-end-serial <n>', 'the endSerialNo maximum the capabilities advertise', int(1), 4_294_967_295)
    .option('--xml-device-info', 'answer deviceInfo in XML even when JSON is asked')
    .option(
      '--json-layout <layout>',
      'JSON answers compact, indent or tabs (as cJSON writes them)',
      oneOf(['compact', 'indent', 'tabs'] as const),
    )
    .option(
      '--stream-replay',
      'every alert-stream (re)connect first re-sends the whole stored log (currentEvent: false)',
    )
    .option('--stream-bare-lf', 'alert-stream part heads end in a bare LF')
    .option(
      '--real-firmware',
      'the firmware variants seen in the field at once: JSON with TABs, XML deviceInfo, endSerialNo above 999,999,999 refused, stream replay, bare-LF part heads, rows with pictureURL/FaceRect/mask/cardType/userType, 20-digit cards, door events with currentVerifyMode "invalid", 5/9 rows with a card and no employee',
    )
    .option(
      '--search-fault <fault>',
      'an event search that does not end: repeat (MORE for ever with the last page), fresh (MORE for ever with new door events), huge (pages padded to --huge-page-mb)',
      oneOf(['repeat', 'fresh', 'huge'] as const),
    )
    .option('--huge-page-mb <n>', 'size of a page with --search-fault huge', int(1, 1024), 15)
    .option(
      '--endless-user-search',
      'the user search says MORE for ever (same page, numOfMatches larger than the rows sent)',
    )
    .option(
      '--no-event-search',
      'the event search is refused (Invalid Operation, notSupport), as on terminals that only post their events (use with --http-host)',
    )
    .option(
      '--stream-fault <fault>',
      'an alert stream that breaks its bounds: endless-part (a part that never ends) or huge-part (a part of 100 MB announced)',
      oneOf(['endless-part', 'huge-part'] as const),
    )
    .option('--bad-event', 'one event numbered 2,999,999,999 and dated 2037 among the others')
    .option(
      '--http-host <url>',
      'HTTP Listening set already: POST each new event to URL (e.g. http://127.0.0.1:8081/listen/hikvision/gate), again until answered 200',
    )
    .option(
      '--listen-format <format>',
      'how events are posted: json, multipart (with a picture part) or xml (default multipart)',
      oneOf(['json', 'multipart', 'xml'] as const),
    )
    .option('--listen-picture-kb <n>', 'size of the picture part of a multipart post', int(0, 4096), 60)
    .option('--listen-from <address>', 'post from this local address')
    .action(action((opts: SimHikvisionOptions) => runSim(opts)));
}

async function runSim(o: SimHikvisionOptions): Promise<number> {
  if (Boolean(o.tlsCert) !== Boolean(o.tlsKey))
    throw new ExitError('--tls-cert and --tls-key go together', EXIT.CONFIG);
  const password = givenPassword(o);
  const offset = o.utcOffset ?? localOffset();
  const passes = o.events ?? (o.eventEvery ? 0 : 100);
  const real = o.realFirmware === true;
  const firmware: Partial<HikFirmware> = {
    pageCap: o.pageCap,
    serialFilters: o.serialFilter === false ? 'ignore' : o.serialFilter,
    endSerialMax: o.endSerialMax ?? (real ? 999_999_999 : null),
    advertisedEndSerialMax: o.advertisedEndSerial,
    deviceInfoXml: o.xmlDeviceInfo ?? real,
    jsonLayout: o.jsonLayout ?? (real ? 'tabs' : 'compact'),
    streamReplay: o.streamReplay ?? real,
    streamBareLf: o.streamBareLf ?? real,
    searchFault: o.searchFault ?? null,
    hugePageBytes: o.hugePageMb * 1024 * 1024,
    endlessUserSearch: o.endlessUserSearch ?? false,
    streamFault: o.streamFault ?? null,
    eventSearch: o.eventSearch,
  };
  const events = generateEvents({
    passes,
    users: o.users,
    startMs: Date.now() + o.clockOffset * 1000 - passes * 7_000 - 60_000,
    utcOffset: offset,
    noise: true,
    realFirmware: real,
    seed: o.seed,
  });
  if (o.badEvent) events.push({ ...BAD_EVENT, time: `${BAD_EVENT.time}${offset}` });
  const sim = await listenOrTempfail(
    o.host,
    o.port,
    startHikvisionSim({
      host: o.host,
      port: o.port,
      username: o.username,
      password: password || undefined,
      serialNumber: o.serial,
      utcOffset: offset,
      clockOffsetSeconds: o.clockOffset,
      firmware,
      lockoutAfter: o.lockoutAfter,
      lockoutMs: o.lockoutMinutes * 60_000,
      writeFault: o.failWriteAfter === undefined ? undefined : { after: o.failWriteAfter, mode: 'error' },
      tls: o.tlsCert && o.tlsKey ? { cert: readSimFile(o.tlsCert), key: readSimFile(o.tlsKey) } : undefined,
      users: Array.from({ length: o.users }, (_, i) => ({
        employeeNo: employeeNoOf(i),
        name: `Person ${employeeNoOf(i)}`,
      })),
      events,
      httpHost: o.httpHost,
      listenFormat: o.listenFormat,
      listenPictureBytes: o.listenPictureKb * 1024,
      listenFrom: o.listenFrom,
    }),
  );
  return withConsoleIo(async (io) => {
    const fw = sim.firmware();
    const variants = [
      fw.endSerialMax !== null ? `endSerialNo up to ${fw.endSerialMax}` : '',
      fw.deviceInfoXml ? 'XML deviceInfo' : '',
      fw.jsonLayout !== 'compact' ? `JSON ${fw.jsonLayout}` : '',
      fw.streamReplay ? 'stream replays its log' : '',
      fw.streamBareLf ? 'bare-LF part heads' : '',
      real ? 'real-firmware rows' : '',
      fw.searchFault ? `search fault ${fw.searchFault}` : '',
      fw.endlessUserSearch ? 'endless user search' : '',
      fw.eventSearch ? '' : 'no event search',
      fw.streamFault ? `stream fault ${fw.streamFault}` : '',
      o.badEvent ? 'a bad event' : '',
      o.httpHost ? `posts events to ${o.httpHost} (${o.listenFormat ?? 'multipart'})` : '',
    ].filter(Boolean);
    io.out(
      `Hikvision terminal simulator ${sim.serialNumber()} listening on ${sim.url} ` +
        `(user ${o.username}, ${sim.events().length} events, serial filters ${fw.serialFilters}, pages of ${fw.pageCap}` +
        `${variants.length ? `; ${variants.join(', ')}` : ''})\n`,
    );
    const rnd = seededRandom(o.seed + 1);
    return tickUntilStopped(io, sim, o.eventEvery, () => {
      const who = employeeNoOf(Math.floor(rnd() * o.users));
      const [e] = sim.addEvents([
        {
          major: 5,
          minor: 75,
          employeeNoString: who,
          name: `Person ${who}`,
          currentVerifyMode: 'face',
          attendanceStatus: 'checkIn',
          doorNo: 1,
        },
        { major: 5, minor: 21, doorNo: 1 },
        { major: 5, minor: 22, doorNo: 1 },
      ]);
      io.err(`event ${e!.serialNo}: ${who} at ${e!.time}\n`);
    });
  });
}
