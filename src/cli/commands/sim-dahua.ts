/**
 * `punchgate sim dahua`: runs the Dahua access terminal simulator (HTTP CGI, Digest) until
 * SIGINT/SIGTERM. Needs no punchgate config file.
 */
import { InvalidArgumentError, type Command } from 'commander';
import {
  DEFAULT_DAHUA_PASSWORD,
  generateRecords,
  HOSTILE_RECORDS,
  startDahuaSim,
  type DigestOffer,
} from '../../sim/dahua/index.js';
import { action, simCommand, withConsoleIo } from '../common.js';
import { int, oneOf, seconds } from '../option-values.js';
import { givenPassword, listenOrTempfail, tickUntilStopped, withListenAndAccount } from '../sim-options.js';

interface SimDahuaOptions {
  host: string;
  port: number;
  username: string;
  password?: string;
  passwordFile?: string;
  serial?: string;
  records: number;
  users: number;
  recordEvery?: number;
  pageCap: number;
  digest: DigestOffer;
  userApi: 'accessUser' | 'recordUpdater';
  timeCondition: 'plain' | 'condition';
  utcOffset?: number;
  slowMs: number;
  clockOffset: number;
  searchFault?: 'endless' | 'huge' | 'cut';
  hugeMb: number;
  hostile?: boolean;
}

function utcOffset(v: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(v);
  if (!m) throw new InvalidArgumentError('expected an offset such as +01:00 or -05:00');
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

export function registerSimDahua(program: Command): void {
  withListenAndAccount(
    simCommand(program).command('dahua').description('simulate a Dahua access terminal (HTTP CGI, Digest MD5/SHA-256)'),
    { port: 8080, account: 'the device account', username: 'admin', defaultPassword: DEFAULT_DAHUA_PASSWORD },
  )
    .option('--serial <sn>', 'serial number (magicBox getSerialNo)')
    .option('--records <n>', 'access records in the log at the start (one in ten a refused try)', int(0), 100)
    .option('--users <n>', 'people the records come from', int(1), 50)
    .option('--record-every <seconds>', 'add a record every SECONDS (told on the event stream)', seconds)
    .option('--page-cap <n>', 'records per answer at most, whatever count asks', int(1, 100_000), 1024)
    .option(
      '--digest <offer>',
      'Digest algorithms offered: md5, sha256 or both',
      oneOf(['md5', 'sha256', 'both'] as const),
      'both',
    )
    .option(
      '--user-api <api>',
      'the user API of the firmware: accessUser (newer) or recordUpdater (older)',
      oneOf(['accessUser', 'recordUpdater'] as const),
      'accessUser',
    )
    .option(
      '--time-condition <form>',
      'the record search takes its window as plain StartTime/EndTime, or only as condition.StartTime/EndTime',
      oneOf(['plain', 'condition'] as const),
      'plain',
    )
    .option('--utc-offset <offset>', "the device's UTC offset (default the box's)", utcOffset)
    .option('--slow-ms <ms>', 'every answer waits this long', int(0, 600_000), 0)
    .option('--clock-offset <seconds>', 'device clock minus the box clock', int(-100_000_000), 0)
    .option(
      '--search-fault <fault>',
      'the record search answers for ever (endless), with --huge-mb of lines (huge), or cut in its middle record (cut)',
      oneOf(['endless', 'huge', 'cut'] as const),
    )
    .option('--huge-mb <n>', 'size of the huge answer', int(1, 1024), 16)
    .option(
      '--hostile',
      'records with hostile texts among the others (control characters, 5,000 characters, markup, a time that is none, a date in 2037)',
    )
    .action(action((opts: SimDahuaOptions) => runSim(opts)));
}

async function runSim(o: SimDahuaOptions): Promise<number> {
  const password = givenPassword(o);
  const offset = o.utcOffset ?? -new Date().getTimezoneOffset();
  const now = Math.floor(Date.now() / 1000) + offset * 60;
  const records = [...generateRecords(o.records, now - 60, 7, o.users), ...(o.hostile ? HOSTILE_RECORDS : [])];
  const sim = await listenOrTempfail(
    o.host,
    o.port,
    startDahuaSim({
      host: o.host,
      port: o.port,
      username: o.username,
      password: password || undefined,
      serial: o.serial,
      utcOffsetMinutes: offset,
      digest: o.digest,
      userApi: o.userApi,
      timeCondition: o.timeCondition,
      pageCap: o.pageCap,
      records,
    }),
  );
  sim.faults({
    slowMs: o.slowMs,
    search: o.searchFault ?? null,
    hugeMb: o.hugeMb,
    clockOffsetSeconds: o.clockOffset,
  });
  return withConsoleIo(async (io) => {
    const variants = [
      `digest ${o.digest}`,
      `users by ${o.userApi}`,
      o.timeCondition === 'condition' ? 'condition.StartTime only' : '',
      o.slowMs ? `answers ${o.slowMs} ms slow` : '',
      o.searchFault ? `search fault ${o.searchFault}` : '',
      o.hostile ? 'hostile records' : '',
    ].filter(Boolean);
    io.out(
      `Dahua terminal simulator ${sim.serial} listening on ${sim.url} ` +
        `(user ${o.username}, ${sim.records().length} records, pages of ${o.pageCap}; ${variants.join(', ')})\n`,
    );
    let n = 0;
    return tickUntilStopped(io, sim, o.recordEvery, () => {
      const who = `${1000 + (n++ % o.users)}`;
      const [r] = sim.addRecords([{ UserID: who, CardName: `Person ${who}`, AttendanceState: n % 2 ? 1 : 4 }]);
      io.err(`record ${r!.RecNo}: ${who}\n`);
    });
  });
}
