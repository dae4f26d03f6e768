import { isIP } from 'node:net';
import { z } from 'zod';
import { validate as validCron } from 'node-cron';
import { nearMiss } from './near-miss.js';
import { webAddress } from './web-address.js';
import { notFourNumbers, zeroPaddedIPv4 } from './ip-words.js';
import { ATTENDANCE_STATUS_STATES } from '../punch/states.js';
import { canonicalEncoding, unusableEncoding } from '../util/name-codec.js';

/** Terminal names appear in devicelog ids, file names and status lines: keep them plain. */
export const terminalName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');

/** An IANA zone name this Node knows (its ICU data). */
export const timezone = z.string().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  {
    // A zone misspelt by a letter (`Europe/Berln`) is named: found by a new-user trial.
    error: (issue) => {
      const expected = 'must be an IANA time zone name such as Europe/Berlin';
      if (typeof issue.input !== 'string') return expected;
      const hint = nearMiss(issue.input, Intl.supportedValuesOf('timeZone'));
      return hint ? `${expected}, got the text ${JSON.stringify(issue.input)} (did you mean "${hint}"?)` : expected;
    },
  },
);

/** Character sets site admins are likely to need, for the message of a misspelt one. */
const COMMON_ENCODINGS = [
  'utf-8',
  'gbk',
  'gb18030',
  'big5',
  'shift_jis',
  'euc-kr',
  'windows-1250',
  'windows-1251',
  'windows-1252',
  'windows-1253',
  'windows-1254',
  'windows-1256',
  'windows-874',
  'iso-8859-2',
];

/**
 * `encoding`: the character set the terminal keeps user names in (its firmware's language: GBK
 * on Simplified Chinese units, Big5 on Traditional Chinese ones, windows-1256 on Arabic ones...),
 * as Node's TextDecoder names it; kept in its standard spelling (`cp1252` -> `windows-1252`).
 */
export const nameEncoding = z
  .string()
  .refine((s) => canonicalEncoding(s) !== null, {
    error: (issue) => {
      const expected = 'must be a character set such as utf-8, gbk, gb18030, big5, windows-1252 or windows-1256';
      if (typeof issue.input !== 'string') return expected;
      const got = `got the text ${JSON.stringify(issue.input)}`;
      const unusable = unusableEncoding(issue.input);
      if (unusable) return `${expected} a terminal keeps names in, ${got}: ${unusable}`;
      const hint = nearMiss(issue.input.toLowerCase(), COMMON_ENCODINGS);
      return hint ? `${expected}, ${got} (did you mean "${hint}"?)` : `${expected}, ${got}`;
    },
  })
  .transform((s) => canonicalEncoding(s)!);

/**
 * A polled terminal's `schedule`: a cron expression as node-cron reads it (5 fields, or 6 with
 * seconds first), run in the terminal's `timezone` (src/sources/schedule.ts).
 */
export const cronSchedule = z
  .string()
  .refine((s) => validCron(s), 'must be a cron expression such as "* * * * *" (every minute)');

// `.describe()`: what a required key expects, said when it is missing (issues.ts).
const common = {
  name: terminalName.describe("a name of the terminal's own, used in commands, logs and the status (e.g. gate-1)"),
  /** IANA zone of the terminal's clock; default the box's zone. */
  timezone: timezone.optional(),
  /** Set false to keep a terminal in the config without polling it. */
  enabled: z.boolean().default(true),
  /**
   * Which way its punches go, for the sinks that take a direction (docs/direction.md): `device`
   * (the state the person chose on the terminal; absent means this), `in` or `out` (a terminal at
   * an entrance or an exit), `alternate` (none sent: a sink that pairs punches, Odoo, pairs them
   * in turn) or `none`.
   */
  direction: z.enum(['device', 'in', 'out', 'alternate', 'none']).optional(),
  /**
   * With `direction: device`: the terminal's states that mean something else than the usual
   * (src/punch/direction.ts), e.g. `{2: none}`. Keys: the state numbers (ZK, push), or Hikvision's
   * attendanceStatus names (checkIn, breakOut...); checked per kind (checkDirectionStates).
   */
  directionStates: z.record(z.string(), z.enum(['in', 'out', 'none'])).optional(),
  /** The sinks (HRMS) its punches go to, by name (src/config/sinks.ts); default every sink. */
  sinks: z.array(terminalName).min(1, 'must name at least one sink (leave sinks out for every sink)').optional(),
};

/** A terminal's `direction` setting. */
export type TerminalDirection = 'device' | 'in' | 'out' | 'alternate' | 'none';
/** What a state means in `directionStates`: `none` sends no direction. */
export type StateDirection = 'in' | 'out' | 'none';

/**
 * A terminal's `host`: the address alone. A newcomer writes it as the terminal's web page shows it
 * (`http://192.168.1.201`) or with its port (`192.168.1.201:4370`): neither resolves, and the
 * terminal would only be said unreachable at its first poll.
 */
const terminalHost = z
  .string()
  .min(1, 'must name a host or address')
  .superRefine((host, ctx) => {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host))
      ctx.addIssue({
        code: 'custom',
        message: `must be the address alone, without ${host.slice(0, host.indexOf('//') + 2)}, got the text "${host}"`,
      });
    else if (/^[^:[\]\s]+:\d+$/.test(host))
      ctx.addIssue({
        code: 'custom',
        message: `must be the address alone, got the text "${host}": write the port in port: (host: ${host.slice(0, host.lastIndexOf(':'))}, port: ${host.slice(host.lastIndexOf(':') + 1)})`,
      });
    else {
      const said = notFourNumbers(host);
      if (said) ctx.addIssue({ code: 'custom', message: said });
    }
  })
  .transform((host) => zeroPaddedIPv4(host) ?? host)
  .describe("the terminal's IP address or host name (e.g. 192.168.1.201)");

export const zkTerminalSchema = z.strictObject({
  ...common,
  kind: z.literal('zk'),
  host: terminalHost,
  port: z.number().int().min(1).max(65535).default(4370),
  transport: z.enum(['tcp', 'udp', 'auto']).default('auto'),
  /** Comm key (a secret): a number, 0 = none. */
  commKey: z.number().int().min(0).max(0xffffffff).default(0),
  /** Cron expression (node-cron's syntax, seconds optional) in the terminal's `timezone`; default every minute. */
  schedule: cronSchedule.default('* * * * *'),
  /** Subscribe to real-time events on a dedicated connection; polling stays as the backstop. */
  realtime: z.boolean().default(false),
  /** Per-exchange timeout. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /**
   * Overall deadline of one poll, however the terminal trickles its answers: `pollDeadlineMs`,
   * plus `pollDeadlinePerRecordMs` for each attendance record the terminal announces.
   */
  pollDeadlineMs: z.number().int().min(1000).default(60_000),
  pollDeadlinePerRecordMs: z.number().min(0).default(5),
  /** Set the terminal's clock when its skew passes `skewThresholdSeconds`. */
  syncClock: z.boolean().default(false),
  skewThresholdSeconds: z.number().int().min(1).default(60),
  /** Clear the terminal's log once everything on it is delivered and older than N days. Off by default. */
  clearAfterDays: z.number().int().min(1).optional(),
  /**
   * Old firmware's 16-byte attendance records: the byte that holds the in/out state. 8 as
   * ZKTeco's firmware lays the record out (the verify type follows in byte 9); 9 for a firmware
   * that keeps them the other way round (every punch then shows as check-in with 8).
   */
  stateByte: z.union([z.literal(8), z.literal(9)]).default(8),
  /** The character set of user names on the terminal; absent: UTF-8 (see nameEncoding). */
  encoding: nameEncoding.optional(),
});

export const serialTerminalSchema = z.strictObject({
  ...common,
  kind: z.literal('serial'),
  path: z
    .string()
    .min(1, 'must name a device such as /dev/ttyUSB0')
    .describe('the serial device the reader is attached to (e.g. /dev/ttyUSB0)'),
  baudRate: z.number().int().positive().default(9600),
  dataBits: z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]).default(8),
  parity: z.enum(['none', 'even', 'odd', 'mark', 'space']).default('none'),
  stopBits: z.union([z.literal(1), z.literal(1.5), z.literal(2)]).default(1),
  format: z.enum(['regex', 'card']),
  /** For format regex: named groups `code` and `time`. */
  pattern: z.string().optional(),
  /** For format regex: how `time` is written, e.g. `YYYY-MM-DD HH:mm:ss`. */
  timeFormat: z.string().default('YYYY-MM-DD HH:mm:ss'),
  /** CSV file mapping card number -> biometric code. */
  codeMap: z.string().optional(),
  /**
   * How the reader ends each read (docs/terminals-serial.md): auto (STX/ETX, CR, LF, CRLF, and a
   * lone key byte before a silence; the default, as lines were read before), line, etx, length
   * (`frameBytes`) or gap (a silence of `gapMs`).
   */
  framing: z.enum(['auto', 'line', 'etx', 'length', 'gap']).default('auto'),
  /** For framing length: the bytes of one read. */
  frameBytes: z.number().int().min(1).max(1024).optional(),
  /** The silence that ends a read (framing gap) or sets a keypad key apart (framing auto). */
  gapMs: z.number().int().min(5).max(10_000).default(30),
  /** Keypad keys (a bare byte, or a frame of at most `keypadMaxBytes`): counted, or ignored; never a punch. */
  keypad: z.enum(['count', 'ignore']).default('count'),
  keypadMaxBytes: z.number().int().min(0).max(8).default(1),
  /**
   * Keys that choose the punch state of the card read that follows (within KEY_STATE_MS), e.g.
   * `{'1': 0, '2': 1}` for check-in and check-out keys; the state numbers of direction.md.
   */
  keypadStates: z.record(z.string().min(1).max(8), z.number().int().min(0).max(255)).optional(),
  /**
   * RDM6300-type frames: the number printed on the tag (decimal of the last 4 data bytes), all 10
   * hex digits, or wiegand26 (decimal of the last 3, as a Wiegand 26 reader of the tag sends it).
   * 7941E-type packets of a MIFARE (or other) card: the decimal of its UID, its UID in hex, or the
   * decimal of its last 3 bytes. Unset: `printed` for EM4100 tags, the UID in hex for the others
   * (what punchgate journalled before the setting applied to them, so no card map has to change).
   */
  cardNumber: z.enum(['printed', 'hex', 'wiegand26']).optional(),
  /**
   * format card: the same card read again while its last frame is less than this old is the card
   * still on the reader (RDM6300-type readers repeat their frame every ~65 ms): one read. 0 = off.
   */
  cardRepeatMs: z.number().int().min(0).max(60_000).default(1000),
  /** Bytes arriving this long without making one read (card, key or line) are an alert. */
  noFrameAlertSeconds: z.number().int().min(1).max(86_400).default(60),
  /** Reconnect backoff bounds when the adapter goes away. */
  reconnectMinMs: z.number().int().min(10).default(1000),
  reconnectMaxMs: z.number().int().min(10).default(30_000),
});

/**
 * The major-5 minors that are authentication passes (hikvision-isapi.md): card, fingerprint, face, ...
 * and face combined with fingerprint, password or card (54, 57, 60, 63, 66: the HCNetSDK
 * MINOR_FACE_AND_*_VERIFY_PASS codes): a terminal set to "face and card" writes 5/60 for every
 * pass, which without them were taken for door noise and never became punches. And the other
 * passes of the HCNetSDK tables, each an identified person let through: person + ID card matched
 * (105, MINOR_PEOPLE_AND_ID_CARD_COMPARE_PASS 0x69), combined authentication (153, 0x99),
 * Bluetooth (159, 0x9f), dynamic code (179, 0xb3: a one-time code shown by an app), password (181, 0xb5). A terminal set
 * to one of these methods writes nothing else for a pass: left out, its punches were dropped.
 */
export const DEFAULT_HIKVISION_MINORS = [
  1, 38, 75, 69, 77, 101, 2, 40, 43, 46, 72, 16, 54, 57, 60, 63, 66, 105, 153, 159, 179, 181,
] as const;

/** `sha256:AB:CD:...` (64 hex digits, colons and letter case free), as `openssl x509 -fingerprint -sha256` prints it. */
const tlsFingerprint = z
  .string()
  .transform((s) => s.trim().replace(/^sha256[:=]/i, ''))
  .refine(
    (s) => /^[0-9a-f]{64}$/i.test(s.replace(/:/g, '')),
    'must be a SHA-256 certificate fingerprint such as "sha256:AB:CD:..." (64 hex digits)',
  )
  .transform((s) =>
    s
      .replace(/:/g, '')
      .toUpperCase()
      .replace(/(..)(?!$)/g, '$1:'),
  );

export const hikvisionTerminalSchema = z
  .strictObject({
    ...common,
    kind: z.literal('hikvision'),
    /** The device's web address: https://192.168.1.64 (or http://). */
    url: webAddress('https://192.168.1.64', { httpOnly: true }).describe(
      "the terminal's web address, as its web page is opened (e.g. https://192.168.1.64)",
    ),
    username: z.string().min(1, 'must name the device account').default('admin'),
    /** File holding the password; env PUNCHGATE_TERMINAL_<NAME>_PASSWORD wins when set. */
    passwordFile: z.string().optional(),
    schedule: cronSchedule.default('* * * * *'),
    /** Pin the device's (self-signed) certificate: its SHA-256 fingerprint. */
    tlsFingerprint: tlsFingerprint.optional(),
    /** A CA (PEM) that signed the device's certificate. */
    caFile: z.string().optional(),
    /** Major-5 minors that are punches (authentication passes); door events and failures never are. */
    minors: z
      .array(z.number().int().min(1).max(65535))
      .min(1, 'must list at least one minor')
      .default([...DEFAULT_HIKVISION_MINORS]),
    /** Keep the device's alertStream open for punches as they happen; polling stays the backstop. */
    realtime: z.boolean().default(false),
    /** Per-request timeout. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    syncClock: z.boolean().default(false),
    skewThresholdSeconds: z.number().int().min(1).default(60),
    /** Firmware without serial-number filters is read by time window, starting this far before the newest event read. */
    overlapMinutes: z.number().int().min(1).max(1440).default(10),
    /**
     * HTTP Listening: the terminal POSTs its events to the push receiver (`adms.listen`, path
     * /listen/hikvision/<name>); polling stays the backstop. `punchgate terminals listen` sets it up.
     */
    listen: z.boolean().optional(),
    /** Addresses (or CIDR networks) the terminal may post from; default the address of its url. */
    allowFrom: allowFromList('leave allowFrom out for the address of url'),
  })
  .superRefine((t, ctx) => {
    if (!URL.canParse(t.url)) return;
    if (new URL(t.url).protocol === 'http:' && (t.tlsFingerprint || t.caFile)) {
      ctx.addIssue({
        code: 'custom',
        path: [t.tlsFingerprint ? 'tlsFingerprint' : 'caFile'],
        message: 'needs an https:// url (the device is reached over plain http)',
      });
    }
    if (t.listen && !t.allowFrom && isIP(new URL(t.url).hostname.replace(/^\[|\]$/g, '')) === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['allowFrom'],
        message: `must list the address the terminal posts from (its url names a host, ${new URL(t.url).hostname}, not an address)`,
      });
    }
  });

/**
 * A Dahua access or attendance terminal (ASI series and OEMs): HTTP CGI with Digest
 * authentication (docs/terminals-dahua.md).
 */
export const dahuaTerminalSchema = z
  .strictObject({
    ...common,
    kind: z.literal('dahua'),
    host: terminalHost,
    /** Default 80, or 443 with tls. */
    port: z.number().int().min(1).max(65535).optional(),
    /** HTTPS instead of HTTP. */
    tls: z.boolean().default(false),
    username: z.string().min(1, 'must name the device account').default('admin'),
    /** File holding the password; env PUNCHGATE_TERMINAL_<NAME>_PASSWORD wins when set. */
    passwordFile: z.string().optional(),
    /** Pin the device's (self-signed) certificate: its SHA-256 fingerprint (tls only). */
    tlsFingerprint: tlsFingerprint.optional(),
    schedule: cronSchedule.default('* * * * *'),
    /** Keep the device's event stream open: a punch is read the moment it happens; polling stays the backstop. */
    realtime: z.boolean().default(false),
    /** Per-request timeout. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Records asked for per page (firmware caps it, often at 1024). */
    pageSize: z.number().int().min(1).max(1024).default(500),
    /**
     * What a record's CreateTime counts: `local` (the device's wall clock written as if it were UTC,
     * as the ASI firmware does) or `utc` (real UTC seconds, turned into the terminal's timezone).
     */
    recordClock: z.enum(['local', 'utc']).default('local'),
    /** Which user API the firmware has: auto (AccessUser.cgi, else recordUpdater.cgi), or one of them. */
    userApi: z.enum(['auto', 'accessUser', 'recordUpdater']).default('auto'),
    skewThresholdSeconds: z.number().int().min(1).default(60),
  })
  .superRefine((t, ctx) => {
    if (t.tlsFingerprint && !t.tls)
      ctx.addIssue({ code: 'custom', path: ['tlsFingerprint'], message: 'needs tls: true' });
  });

/**
 * A ZKBioTime / ZKBioSecurity server (kind: biotime): its terminals push to it, punchgate reads
 * the transactions it collected through its API (src/sources/biotime), never writing to it.
 */
export const biotimeTerminalSchema = z.strictObject({
  ...common,
  kind: z.literal('biotime'),
  /** The server's web address: http://192.168.1.20:8081 (or https://). */
  baseUrl: webAddress('http://192.168.1.20:8081', { httpOnly: true }).describe(
    "the BioTime server's web address (e.g. http://192.168.1.20:8081)",
  ),
  username: z
    .string()
    .min(1, 'must name an account of the BioTime server')
    .describe('an account of the BioTime server that punchgate signs in with (e.g. punchgate)'),
  /** File holding the password; env PUNCHGATE_TERMINAL_<NAME>_PASSWORD wins when set. */
  passwordFile: z.string().optional(),
  /** How to get a token: `jwt` (/jwt-api-token-auth/), `token` (/api-token-auth/), or `auto` (jwt, else token). */
  auth: z.enum(['auto', 'jwt', 'token']).default('auto'),
  /** Transactions asked for per page. */
  pageSize: z.number().int().min(10).max(1000).default(500),
  schedule: cronSchedule.default('* * * * *'),
  /** Per-request timeout. */
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  /** A CA (PEM) that signed the server's certificate. */
  caFile: z.string().optional(),
  /** Read only the transactions of these terminal serial numbers (default: all). */
  terminals: z
    .array(
      z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be a terminal serial number such as CQZ7232160001'),
    )
    .min(1, 'must list at least one serial (leave terminals out to read all)')
    .optional(),
  /** Read only the transactions of these areas (area_alias, as the server names them). */
  areas: z
    .array(z.string().min(1).max(100))
    .min(1, 'must list at least one area (leave areas out to read all)')
    .optional(),
  /** Servers that cannot order by id are read by time window, starting this far before the newest punch read. */
  overlapMinutes: z.number().int().min(1).max(10_080).default(1440),
  /** Punches reaching the server this much later than they were made are an alert (the server is behind its terminals). */
  lagAlertMinutes: z.number().int().min(1).default(60),
});

/** An address (`192.168.10.7`, `fd00::7`) or a network in CIDR form (`192.168.10.0/24`, `fd00::/64`). */
/**
 * An `allowFrom` list: addresses and CIDR networks, trimmed, an IPv4 address written with
 * zero-padded numbers (`192.168.001.020`, as the terminal's menu shows it) read as the decimal it
 * means, as a terminal's host and a server's address are (zeroPaddedIPv4): it was refused, and the
 * whole config with it. `leaveOut`: what leaving the list out means, for an empty list's words.
 */
function allowFromList(leaveOut: string) {
  return z
    .array(
      z
        .string()
        .transform((s) => plainAllowEntry(s.trim()))
        .refine(validAddressOrCidr, 'must be an address or a network such as 192.168.10.0/24'),
    )
    .min(1, `must list at least one address or network (${leaveOut})`)
    .optional();
}

/** `192.168.001.020` as 192.168.1.20, `010.000.000.000/8` as 10.0.0.0/8; anything else as written. */
function plainAllowEntry(entry: string): string {
  const slash = entry.indexOf('/');
  const addr = slash < 0 ? entry : entry.slice(0, slash);
  const plain = zeroPaddedIPv4(addr);
  return plain === undefined ? entry : plain + (slash < 0 ? '' : entry.slice(slash));
}

export function validAddressOrCidr(s: string): boolean {
  const [addr, prefix, ...rest] = s.trim().split('/');
  const family = isIP(addr ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * A push terminal (ZKTeco ADMS / iclock firmware): it connects to the gateway's receiver
 * (`adms.listen`) and is known by the serial number it sends.
 */
export const admsTerminalSchema = z.strictObject({
  ...common,
  kind: z.literal('adms'),
  /** The `SN=` the terminal sends (Menu > System Info > Device Info > Serial Number). */
  serial: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be the serial number the terminal sends, e.g. CQZ7232160001')
    .describe("the terminal's serial number, as its System Info shows it and the SN= it sends (e.g. CQZ7232160001)"),
  /** Addresses (or CIDR networks) this serial may push from; default anywhere. */
  allowFrom: allowFromList('leave allowFrom out to accept any'),
  /**
   * Security PUSH terminals (rtlog): the event codes that are punches. Default: the vendor's
   * successful verifications (DEFAULT_PUNCH_EVENTS); refusals, door and alarm events never are.
   */
  punchEvents: z
    .array(z.number().int().min(0).max(65_535))
    .min(1, 'must list at least one event code (leave punchEvents out for the default)')
    .optional(),
  /**
   * The push protocol's dialect the terminal is answered in: `2.0.1` (old firmware: `Stamp=`, a
   * bit-string TransFlag, a bare `OK`) or `current` (`ATTLOGStamp=`, `OK:<n>`). Absent: the one
   * its handshake shows (no `pushver`, or one below 2.2, is 2.0.1).
   */
  pushDialect: z.enum(['2.0.1', 'current']).optional(),
  /** The character set of user names the terminal sends and is sent; absent: UTF-8 (see nameEncoding). */
  encoding: nameEncoding.optional(),
});

export const terminalSchema = z
  .discriminatedUnion('kind', [
    zkTerminalSchema,
    serialTerminalSchema,
    hikvisionTerminalSchema,
    admsTerminalSchema,
    dahuaTerminalSchema,
    biotimeTerminalSchema,
  ])
  .superRefine(checkDirectionStates);

const HIKVISION_STATUS_NAMES = [...ATTENDANCE_STATUS_STATES.keys()];

/**
 * The number a `directionStates` key stands for on a terminal of this kind, or why it stands for
 * none: ZK and push terminals record numbers (0-255), Hikvision terminals an attendanceStatus
 * name, a serial reader no state at all.
 */
export function directionStateKey(kind: string, key: string): number | string {
  if (kind === 'serial') return 'a serial reader records no state: set direction: in or out for this terminal';
  if (kind === 'hikvision') {
    const lower = key.toLowerCase();
    const name = HIKVISION_STATUS_NAMES.find((n) => n.toLowerCase() === lower);
    return name !== undefined
      ? ATTENDANCE_STATUS_STATES.get(name)!
      : `must be an attendanceStatus of the terminal (${HIKVISION_STATUS_NAMES.join(', ')}), got "${key}"`;
  }
  return /^\d{1,3}$/.test(key) && Number(key) <= 255
    ? Number(key)
    : `must be a state number 0-255 (0 check-in, 1 check-out, 2 break-out, 3 break-in, 4 overtime-in, 5 overtime-out, 255 undefined), got "${key}"`;
}

function checkDirectionStates(
  t: { kind: string; direction?: TerminalDirection; directionStates?: Record<string, StateDirection> },
  ctx: z.RefinementCtx,
): void {
  if (t.directionStates === undefined) return;
  if (t.direction !== undefined && t.direction !== 'device') {
    ctx.addIssue({
      code: 'custom',
      path: ['directionStates'],
      message: `is read only with direction: device (this terminal has direction: ${t.direction}): remove one of them`,
    });
    return;
  }
  const seen = new Map<number, string>();
  for (const key of Object.keys(t.directionStates)) {
    const state = directionStateKey(t.kind, key);
    if (typeof state === 'string') {
      ctx.addIssue({
        code: 'custom',
        path: t.kind === 'serial' ? ['directionStates'] : ['directionStates', key],
        message: state,
      });
      if (t.kind === 'serial') return;
      continue;
    }
    const other = seen.get(state);
    if (other !== undefined)
      ctx.addIssue({ code: 'custom', path: ['directionStates', key], message: `names the same state as ${other}` });
    seen.set(state, key);
  }
}

export type ZkTerminalConfig = z.infer<typeof zkTerminalSchema>;
export type SerialTerminalConfig = z.infer<typeof serialTerminalSchema>;
export type HikvisionTerminalConfig = z.infer<typeof hikvisionTerminalSchema>;
export type AdmsTerminalConfig = z.infer<typeof admsTerminalSchema>;
export type DahuaTerminalConfig = z.infer<typeof dahuaTerminalSchema>;
export type BiotimeTerminalConfig = z.infer<typeof biotimeTerminalSchema>;
export type TerminalConfig = z.infer<typeof terminalSchema>;

/** The environment variable that holds a Hikvision terminal's password: PUNCHGATE_TERMINAL_<NAME>_PASSWORD. */
export function terminalPasswordEnv(name: string): string {
  return `PUNCHGATE_TERMINAL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_PASSWORD`;
}

/** `terminals[2]`: where a terminal is in the config, as the fixes of check and the status name its settings. */
export function configKeyIn(config: { terminals: readonly { name: string }[] }, name: string): string {
  const i = config.terminals.findIndex((t) => t.name === name);
  return i < 0 ? `terminals[${name}]` : `terminals[${i}]`;
}
