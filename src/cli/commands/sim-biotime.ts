/**
 * `punchgate sim biotime`: runs the ZKBioTime server simulator (its token endpoints and
 * transaction list) until SIGINT/SIGTERM. Needs no punchgate config file.
 */
import type { Command } from 'commander';
import {
  DEFAULT_BIOTIME_PASSWORD,
  DEFAULT_BIOTIME_USER,
  empCodeOf,
  generateTransactions,
  hostileTransactions,
  SIM_TERMINALS,
  startBiotimeSim,
  transaction,
  TransactionTable,
  type BioServerVariant,
} from '../../sim/biotime/index.js';
import { seededRandom } from '../../util/seeded-random.js';
import { action, simCommand, withConsoleIo } from '../common.js';
import { int, oneOf, seconds } from '../option-values.js';
import { givenPassword, listenOrTempfail, tickUntilStopped, withListenAndAccount } from '../sim-options.js';

interface SimBiotimeOptions {
  host: string;
  port: number;
  username: string;
  password?: string;
  passwordFile?: string;
  transactions: number;
  users: number;
  every?: number;
  auth: BioServerVariant['auth'];
  envelope: BioServerVariant['envelope'];
  idOrder: boolean;
  maxPageSize: number;
  tokenTtl: number;
  tokenRefused403?: boolean;
  licenceRefuses?: boolean;
  delayMs: number;
  fault?: NonNullable<BioServerVariant['fault']>;
  hugeMb: number;
  hostile?: boolean;
  uploadLag: number;
  seed: number;
}

export function registerSimBiotime(program: Command): void {
  withListenAndAccount(
    simCommand(program)
      .command('biotime')
      .description('simulate a ZKBioTime server (its API: token endpoints and the transaction list)'),
    {
      port: 8081,
      account: 'the API account',
      username: DEFAULT_BIOTIME_USER,
      defaultPassword: DEFAULT_BIOTIME_PASSWORD,
    },
  )
    .option('--transactions <n>', 'transactions in the table at the start', int(0), 100)
    .option('--users <n>', 'people they come from', int(1), 20)
    .option('--every <seconds>', 'a new transaction every SECONDS', seconds)
    .option(
      '--auth <endpoints>',
      'token endpoints: both (JWT and Token) or token (only /api-token-auth/)',
      oneOf(['both', 'token'] as const),
      'both',
    )
    .option(
      '--envelope <shape>',
      'page shape: biotime ({msg, code, data}) or drf ({results})',
      oneOf(['biotime', 'drf'] as const),
      'biotime',
    )
    .option('--no-id-order', 'a version that ignores ordering and id__gt (newest first)')
    .option('--max-page-size <n>', 'rows per page at most, whatever is asked', int(1, 100_000), 1000)
    .option('--token-ttl <seconds>', 'a JWT expires this long after it was given (0: never)', int(0), 0)
    .option(
      '--token-refused-403',
      'a refused or expired token is answered 403, not 401 (Django REST Framework with session authentication first)',
    )
    .option('--licence-refuses', 'the licence has no API module: reads answer 403 (the IsNotOpenAPI permission)')
    .option('--delay-ms <ms>', 'every answer waits this long', int(0), 0)
    .option(
      '--fault <fault>',
      'the transaction list misbehaves: endless, huge or next-forever',
      oneOf(['endless', 'huge', 'next-forever'] as const),
    )
    .option('--huge-mb <n>', 'size of a page with --fault huge', int(1, 1024), 15)
    .option('--hostile', 'add transactions with hostile text (control characters, markup, a 5,000-character code)')
    .option('--upload-lag <seconds>', 'transactions reach the server this long after they are punched', int(0), 2)
    .option('--seed <n>', 'same seed, same transactions', int(0), 1)
    .action(action((opts: SimBiotimeOptions) => runSim(opts)));
}

async function runSim(o: SimBiotimeOptions): Promise<number> {
  const password = givenPassword(o);
  const now = Date.now();
  const table = new TransactionTable(
    generateTransactions({
      count: o.transactions,
      users: o.users,
      startMs: now - o.transactions * 7_000 - 60_000,
      uploadLagMs: o.uploadLag * 1000,
      seed: o.seed,
    }),
  );
  if (o.hostile) table.add(hostileTransactions(now - 30_000));
  const sim = await listenOrTempfail(
    o.host,
    o.port,
    startBiotimeSim({
      host: o.host,
      port: o.port,
      username: o.username,
      password: password || undefined,
      table,
      variant: {
        auth: o.auth,
        envelope: o.envelope,
        idOrder: o.idOrder,
        maxPageSize: o.maxPageSize,
        tokenTtlMs: o.tokenTtl * 1000,
        refusedTokenStatus: o.tokenRefused403 === true ? 403 : 401,
        licenceRefuses: o.licenceRefuses === true,
        delayMs: o.delayMs,
        fault: o.fault ?? null,
        hugeBytes: o.hugeMb * 1024 * 1024,
      },
    }),
  );
  return withConsoleIo(async (io) => {
    const v = sim.variant();
    const variants = [
      v.auth === 'token' ? 'Token auth only' : '',
      v.envelope === 'drf' ? 'DRF pages' : '',
      v.idOrder ? '' : 'no id order',
      v.tokenTtlMs ? `tokens expire after ${v.tokenTtlMs / 1000} s` : '',
      v.refusedTokenStatus === 403 ? 'refused tokens answered 403' : '',
      v.licenceRefuses ? 'licence refuses the API' : '',
      v.fault ? `fault ${v.fault}` : '',
      o.hostile ? 'hostile rows' : '',
    ].filter(Boolean);
    io.out(
      `BioTime server simulator listening on ${sim.url} (user ${o.username}, ${table.size} transactions from ${SIM_TERMINALS.length} terminals` +
        `${variants.length ? `; ${variants.join(', ')}` : ''})\n`,
    );
    const rnd = seededRandom(o.seed + 1);
    return tickUntilStopped(io, sim, o.every, () => {
      const [t] = sim.add([
        transaction(
          {
            emp: empCodeOf(Math.floor(rnd() * o.users)),
            atMs: Date.now(),
            terminal: SIM_TERMINALS[Math.floor(rnd() * SIM_TERMINALS.length)]!,
            state: rnd() < 0.5 ? 0 : 1,
            verify: 1,
          },
          o.uploadLag * 1000,
        ),
      ]);
      io.err(`transaction ${t!.id}: ${t!.emp_code} at ${t!.punch_time} on ${t!.terminal_sn}\n`);
    });
  });
}
