import { InvalidArgumentError, type Command } from 'commander';
import type { AppContext } from '../../context.js';
import { credentialWords, Deliverer, type DrainReport } from '../../delivery/index.js';
import { deliveryTo, NO_TOKEN } from '../../delivery/health.js';
import { credentialPlace, sinksOf, terminalsNotFor } from '../../config/sinks.js';
import { addressShown } from '../../config/web-address.js';
import { holdOption, holdPolicy } from '../../sinks/hold-policy.js';
import { heldBehindRefusedAlert, heldBehindRefusedCount } from '../../status/refusals.js';
import { compilePatterns } from '../../delivery/outcomes.js';
import type { AttendanceSender } from '../../hrms/attendance.js';
import { BUILT_IN_MAKERS, buildSinkSender, sinkPunchContext, sinkTokens } from '../../sinks/build.js';
import { keptRules } from '../../punch/kept-direction.js';
import { buildProblem, sinkKeyPrefix } from '../../sinks/build-problem.js';
import { renamedTerminals } from '../../sinks/renamed.js';
import { SeedSinkSender } from '../../sinks/seed.js';
import type { SinkSender } from '../../sinks/types.js';
import type { JournalCounts } from '../../journal/types.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { abortOnStopSignal } from '../../util/signals.js';
import { action, journalErrorOf, loadContext, openJournal } from '../common.js';
import { escapeControls } from '../../util/terminal-text.js';

export interface FlushOptions {
  /** Also send rejected punches now, ignoring their retry time. */
  all?: boolean;
  /** How long to keep retrying temporary failures. */
  maxWaitSeconds: number;
  /** Where the summary goes (default stdout) and where problems go (default stderr). */
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** Only this sink (its name); default every sink, the default one first. */
  sink?: string;
  /** Test seams: the default sink's HTTP client and the environment the token is read from. */
  sender?: AttendanceSender;
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_MAX_WAIT_SECONDS = 60;

/**
 * `punchgate flush`: delivers what is deliverable now and exits 0 when nothing is left pending,
 * 75 (try again later) otherwise, including when the HRMS refuses the token. The journal is
 * opened shared, so it works beside a running daemon.
 */
export async function runFlush(ctx: AppContext, opts: FlushOptions): Promise<number> {
  // Lines quote the HRMS's answers: printed with control characters escaped.
  const out = opts.out ?? ((l: string) => process.stdout.write(`${escapeControls(l)}\n`));
  const err = opts.err ?? ((l: string) => process.stderr.write(`${escapeControls(l)}\n`));
  const { config } = ctx;
  const sinks = sinksOf(config);
  const [first, ...others] = sinks;
  if (opts.sink !== undefined && !sinks.some((s) => s.name === opts.sink))
    throw new ExitError(
      `no sink is named ${opts.sink} (the sinks are: ${sinks.map((s) => s.name).join(', ')})`,
      EXIT.CONFIG,
    );
  const journal = openJournal(ctx, 'shared');
  const stop = abortOnStopSignal();
  let code: number = EXIT.OK;
  try {
    if (first && others.length > 0)
      journal.useSinks({
        defaultSink: first.name,
        others: others.map((s) => s.name),
        defaultNotFor: terminalsNotFor(config, first.name),
      });
    const zones = journal.terminalZones();
    const directions = journal.terminalDirections();
    const punchContext = sinkPunchContext(
      config.terminals,
      renamedTerminals(config.terminals, () => journal.terminalDevices(), Date.now),
      // A terminal taken out keeps the zone it had (the daemon records it; terminal-zones.ts).
      (t) => zones.get(t),
      // ...and the direction it was set to (terminal-directions.ts).
      keptRules(directions),
    );
    for (const sink of sinks) {
      if (opts.sink !== undefined && sink.name !== opts.sink) continue;
      const isDefault = sink === first;
      const queue = isDefault ? journal : journal.sinkQueue(sink.name, terminalsNotFor(config, sink.name));
      let sender: SinkSender;
      try {
        sender =
          isDefault && opts.sender
            ? new SeedSinkSender(opts.sender)
            : buildSinkSender(sink, {
                authPatterns: compilePatterns(config.delivery.patterns.authFailure),
                makers: BUILT_IN_MAKERS,
                ...(opts.env ? { env: opts.env } : {}),
              });
      } catch (e) {
        // The words the daemon's status and `check` give (build-problem.ts): the key that failed and its fix.
        const p = buildProblem(e, sinkKeyPrefix(sink, isDefault && sink.name === 'hrms' && !!config.hrms));
        err(`sink ${sink.name}: ${p.problem}: ${p.fix}`);
        code = EXIT.TEMPFAIL;
        continue;
      }
      const place = credentialPlace(sink, isDefault && !!config.hrms);
      const deliverer = new Deliverer({
        queue,
        state: journal.deliveryStateOf(isDefault ? undefined : sink.name),
        tokens: sinkTokens(sink, ctx.secrets, {
          fromHrmsBlock: isDefault && !!config.hrms,
          ...(opts.env ? { env: opts.env } : {}),
        }),
        delivery: config.delivery,
        logger: ctx.logger,
        clock: ctx.clock,
        sinkSender: sender,
        address: addressShown(sink.baseUrl),
        credential: credentialWords(sink.kind, place),
        ...(isDefault ? {} : { sink: sink.name }),
        ...punchContext,
        ...holdOption(sink),
      });
      try {
        const report = await deliverer.drain({
          maxWaitMs: opts.maxWaitSeconds * 1000,
          includeRejected: opts.all ?? false,
          signal: stop.signal,
        });
        const counts = isDefault ? journal.queries.counts() : (queue as ReturnType<typeof journal.sinkQueue>).counts();
        const label = isDefault ? 'flush' : `flush (sink ${sink.name})`;
        out(summaryLine(report, counts, label));
        // Only the message came from outside: it is what is scrubbed, not our own words around it
        // (a token holding a run of "HRMS delivery to" redacted the line's own words, found by a test).
        const said = report.message === undefined ? {} : { message: ctx.secrets.scrub(report.message) };
        const { who } = credentialWords(sink.kind);
        const problem = problemLine({ ...report, ...said }, place, who, deliveryTo(who, addressShown(sink.baseUrl)));
        if (problem) err(isDefault ? problem : `sink ${sink.name}: ${problem}`);
        // Pending punches left behind a refused one of the same person (Odoo): say why they stayed.
        const held = heldBehindRefusedCount(queue, holdPolicy(sink));
        for (const a of heldBehindRefusedAlert(held, isDefault ? undefined : sink.name))
          err(escapeControls(`${a.cause}: ${a.fix}`));
        // Anything but a clean finish means something deliverable is still waiting: try again later.
        if (!(report.stoppedBy === 'done' && counts.pending === 0)) code = EXIT.TEMPFAIL;
      } finally {
        await deliverer.close();
        if (!(isDefault && opts.sender)) await sender.close?.();
      }
      if (stop.signal.aborted) break;
    }
    return code;
  } catch (e) {
    throw journalErrorOf(journal.path, e);
  } finally {
    stop.dispose();
    journal.close();
  }
}

function summaryLine(r: DrainReport, c: JournalCounts, label = 'flush'): string {
  const sent = [`${r.delivered} delivered`, `${r.duplicates} already recorded`, `${r.rejected} rejected`].join(', ');
  const left = [
    `${c.pending} pending`,
    `${c.rejected} rejected`,
    `${c.dead} dead`,
    `${c.quarantined} quarantined`,
    ...(c.notRouted > 0 ? [`${c.notRouted} not for this sink (not sent: their terminal's sinks: leaves it out)`] : []),
  ].join(', ');
  return `${label}: ${sent} (${r.requests} request${r.requests === 1 ? '' : 's'}); left: ${left}`;
}

/**
 * `credential`: where the sink's credential is set (credentialPlace); `delivery`: the sink and the
 * address delivery calls (deliveryTo), as the daemon's lines name them: a wrong baseUrl is seen at once.
 */
function problemLine(r: DrainReport, credential: string, what: string, delivery: string): string | undefined {
  switch (r.stoppedBy) {
    case 'auth':
      if (r.message?.startsWith(NO_TOKEN)) return `${r.message} (then run flush again)`;
      // Named with the address, as the other lines: a token meant for another HRMS is seen at once.
      return what === 'HRMS'
        ? `${delivery}: HRMS refused the token: ${r.message ?? 'no reason given'} (write a valid token to ${credential} and run flush again)`
        : `${delivery}: ${what} refused the credential: ${r.message ?? 'no reason given'} (put a valid one in ${credential} and run flush again)`;
    case 'request-failed':
      return `${delivery}: request failed: ${r.message ?? 'no reason given'}`;
    case 'max-wait':
      return `${delivery}: not reachable within --max-wait: ${r.message ?? 'temporary failure'}`;
    case 'aborted':
      return 'flush interrupted: unsent punches stay in the journal';
    default:
      return undefined;
  }
}

function parseSeconds(v: string): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || !Number.isFinite(n))
    throw new InvalidArgumentError('must be a number of seconds (>= 0)');
  return n;
}

export function registerFlush(program: Command): void {
  program
    .command('flush')
    .description('deliver what is deliverable now, then exit: 0 when nothing is left pending, 75 otherwise')
    .option('--all', 'also send rejected punches now, ignoring their retry time')
    .option('--sink <name>', 'only this sink (default: every sink)')
    .option(
      '--max-wait <seconds>',
      'keep retrying temporary failures for up to this long',
      parseSeconds,
      DEFAULT_MAX_WAIT_SECONDS,
    )
    .action(
      action(async (o: { all?: boolean; maxWait: number; sink?: string }, cmd: Command) =>
        runFlush(loadContext(cmd, { logToStderr: true }), {
          all: o.all ?? false,
          maxWaitSeconds: o.maxWait,
          ...(o.sink !== undefined ? { sink: o.sink } : {}),
        }),
      ),
    );
}
