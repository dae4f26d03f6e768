import type { Config } from '../config/schema.js';
import { credentialPlace, sinksOf, terminalsNotFor, type SinkConfig } from '../config/sinks.js';
import { addressShown } from '../config/web-address.js';
import { holdOption } from '../sinks/hold-policy.js';
import type { AppContext } from '../context.js';
import { clearCannotStart, markCannotStart } from '../delivery/cannot-start.js';
import { credentialWords, Deliverer } from '../delivery/index.js';
import { compilePatterns } from '../delivery/outcomes.js';
import { isFatalJournalError } from '../journal/errors.js';
import type { Journal } from '../journal/journal.js';
import type { DeliveryQueue } from '../journal/types.js';
import { BUILT_IN_MAKERS, buildSinkSender, sinkPunchContext, sinkTokens, type SinkMakers } from '../sinks/build.js';
import { buildProblem, sinkKeyPrefix } from '../sinks/build-problem.js';
import { renamedTerminals } from '../sinks/renamed.js';
import type { DirectionRule } from '../punch/direction.js';
import { keptDirectionOf, keptRules, type KeptDirectionText } from '../punch/kept-direction.js';
import { boxIanaZone } from '../util/box-zone.js';
import { elapsedMs } from '../util/clock.js';
import { messageOf } from '../util/errors.js';
import { ShiftSyncRunner } from './shift-sync-runner.js';
import { TimedSender, type RequestObserver } from './watchdog.js';

/** One sink's delivery loop in the daemon. */
export interface SinkRun {
  sink: SinkConfig;
  /** The first sink: its state is the punches table's (journal/sink-deliveries.ts). */
  isDefault: boolean;
  deliverer: Deliverer;
  sender: TimedSender;
  /** A request in flight longer than this means the loop hangs (the watchdog). */
  boundMs: number;
  abort: AbortController;
  done: Promise<void>;
  /** A Frappe sink with `shiftSync:` entries: its shift sync beside the loop. */
  shiftSync?: ShiftSyncRunner;
}

export interface DeliveriesDeps {
  journal: Journal;
  ctx: AppContext;
  /** The default sink's queue as the daemon wraps it (labelled for the event-loop watch, counted for /metrics). */
  defaultQueue: () => DeliveryQueue;
  /** Wraps another sink's queue the same way. */
  wrapQueue: (q: DeliveryQueue) => DeliveryQueue;
  /** Every request of a sink, with its answer (metrics, the page's chart). */
  observe: (sink: string, isDefault: boolean) => RequestObserver;
  onFatal: (e: unknown) => void;
  /** The Frappe and Odoo senders, where this build has them. */
  makers?: SinkMakers;
}

/**
 * A delivery loop per sink (issue 32): each its own queue, sender, token, backoff and probe, so
 * that one sink down never slows another. The first sink of the config is the default one (the
 * `hrms:` block where there is one) and runs exactly as delivery ran before sinks.
 */
export class SinkDeliveries {
  private runs: SinkRun[] = [];
  /** The sinks of the last start whose sender could not be built: a reload builds them again. */
  private unbuilt: string[] = [];

  constructor(private readonly d: DeliveriesDeps) {}

  /** Starts a loop per sink of `config` (after telling the journal the config's sinks). */
  start(config: Config): void {
    const { ctx, journal } = this.d;
    const sinks = sinksOf(config);
    const [first, ...others] = sinks;
    if (!first) return;
    try {
      journal.useSinks({
        defaultSink: first.name,
        others: others.map((s) => s.name),
        defaultNotFor: terminalsNotFor(config, first.name),
      });
    } catch (e) {
      if (isFatalJournalError(e)) throw e;
      // Busy: the sinks the journal knew stay as they were; new ones are registered at the next start or reload.
      ctx.logger.warn({ err: messageOf(e) }, 'could not record the sinks in the journal (busy): retried at reload');
    }
    const punchContext = sinkPunchContext(
      config.terminals,
      renamedTerminals(
        config.terminals,
        () => journal.terminalDevices(),
        () => elapsedMs(ctx.clock),
      ),
      rememberedZones(journal, config, ctx),
      rememberedDirections(journal, config, ctx),
    );
    this.unbuilt = [];
    for (const sink of sinks) {
      const isDefault = sink === first;
      const fromHrmsBlock = isDefault && sink.name === 'hrms' && !!config.hrms;
      const state = journal.deliveryStateOf(isDefault ? undefined : sink.name);
      let inner;
      try {
        inner = buildSinkSender(sink, {
          authPatterns: compilePatterns(config.delivery.patterns.authFailure),
          makers: this.d.makers ?? BUILT_IN_MAKERS,
        });
      } catch (e) {
        // No loop can run for it: its state says so, so that the status, the page, /metrics and
        // /readyz show it at once (a log line alone went unseen while punches waited).
        const { problem, fix } = buildProblem(e, sinkKeyPrefix(sink, fromHrmsBlock));
        const words = `${problem}: ${fix}; its punches wait in the journal`;
        ctx.logger.error({ sink: sink.name }, `delivery to sink ${sink.name} cannot start: ${words}`);
        markCannotStart(state, ctx.clock, `${problem}: ${fix}`);
        this.unbuilt.push(sink.name);
        continue;
      }
      clearCannotStart(state);
      const sender = new TimedSender(inner, () => elapsedMs(ctx.clock), this.d.observe(sink.name, isDefault));
      const queue = isDefault
        ? this.d.defaultQueue()
        : this.d.wrapQueue(journal.sinkQueue(sink.name, terminalsNotFor(config, sink.name)));
      const tokens = sinkTokens(sink, ctx.secrets, { fromHrmsBlock });
      const deliverer = new Deliverer({
        queue,
        state,
        tokens,
        delivery: config.delivery,
        logger: isDefault ? ctx.logger : ctx.logger.child({ sink: sink.name }),
        clock: ctx.clock,
        sinkSender: sender,
        address: addressShown(sink.baseUrl),
        credential: credentialWords(sink.kind, credentialPlace(sink, fromHrmsBlock)),
        ...(isDefault ? {} : { sink: sink.name }),
        ...punchContext,
        ...holdOption(sink),
      });
      const abort = new AbortController();
      const done = deliverer.run(abort.signal).catch((e) => {
        if (isFatalJournalError(e)) this.d.onFatal(e);
        else ctx.logger.error({ sink: sink.name, err: messageOf(e) }, `delivery loop of sink ${sink.name} ended`);
      });
      const boundMs =
        sink.kind === 'hrms' ? sink.timeoutMs + sink.connectTimeoutMs + 10_000 : sink.timeoutMs * 2 + 10_000;
      const shiftSync =
        sink.kind === 'frappe' && sink.shiftSync && sink.shiftSync.length > 0
          ? new ShiftSyncRunner({
              sink: { ...sink, shiftSync: sink.shiftSync },
              isDefault,
              journal,
              terminals: config.terminals,
              tokens,
              logger: isDefault ? ctx.logger : ctx.logger.child({ sink: sink.name }),
              clock: ctx.clock,
              onFatal: this.d.onFatal,
            })
          : undefined;
      shiftSync?.start();
      this.runs.push({ sink, isDefault, deliverer, sender, boundMs, abort, done, ...(shiftSync ? { shiftSync } : {}) });
    }
  }

  /** Stops every loop: requests in flight are abandoned, their punches go back to the queue. */
  async stop(): Promise<void> {
    const runs = this.runs;
    this.runs = [];
    for (const r of runs) r.abort.abort();
    for (const r of runs) {
      await r.shiftSync?.stop();
      await r.done;
      await r.deliverer.close();
      await r.sender.close();
    }
  }

  get running(): boolean {
    return this.runs.length > 0;
  }

  /** Whether a sink of the last start could not be built: a reload tries it again (its file may be fixed now). */
  get incomplete(): boolean {
    return this.unbuilt.length > 0;
  }

  /** New punches: every idle loop looks at its queue. */
  wake(): void {
    for (const r of this.runs) r.deliverer.wake();
  }

  /** The default sink's loop. */
  get default(): SinkRun | undefined {
    return this.runs.find((r) => r.isDefault);
  }

  list(): readonly SinkRun[] {
    return this.runs;
  }

  /** Whether some sink's request hangs past its deadline (the watchdog is then not fed). */
  hung(now: number): boolean {
    return this.runs.some((r) => r.sender.inflightSince !== null && now - r.sender.inflightSince >= r.boundMs);
  }
}

/**
 * Records the configured terminals' zones in the journal and returns the zone each terminal had,
 * so that a terminal taken out of the config keeps its zone for its waiting punches (terminal-zones.ts).
 */
function rememberedZones(journal: Journal, config: Config, ctx: AppContext): (terminal: string) => string | undefined {
  try {
    journal.rememberTerminalZones(
      config.terminals.map((t) => ({ terminal: t.name, timezone: t.timezone ?? boxIanaZone() })),
      ctx.clock.now(),
    );
  } catch (e) {
    if (isFatalJournalError(e)) throw e;
    ctx.logger.warn(
      { err: messageOf(e) },
      'could not record the terminals’ zones in the journal (busy): retried at reload',
    );
  }
  let zones = new Map<string, string>();
  try {
    zones = journal.terminalZones();
  } catch (e) {
    if (isFatalJournalError(e)) throw e;
  }
  return (t) => zones.get(t);
}

/**
 * Records the configured terminals' direction settings in the journal and returns the rule each
 * terminal had, so that a terminal taken out of the config keeps its direction for its waiting
 * punches (terminal-directions.ts).
 */
function rememberedDirections(
  journal: Journal,
  config: Config,
  ctx: AppContext,
): (terminal: string) => DirectionRule | undefined {
  try {
    journal.rememberTerminalDirections(
      config.terminals.map((t) => ({ terminal: t.name, ...keptDirectionOf(t) })),
      ctx.clock.now(),
    );
  } catch (e) {
    if (isFatalJournalError(e)) throw e;
    ctx.logger.warn(
      { err: messageOf(e) },
      'could not record the terminals’ direction settings in the journal (busy): retried at reload',
    );
  }
  let kept = new Map<string, KeptDirectionText>();
  try {
    kept = journal.terminalDirections();
  } catch (e) {
    if (isFatalJournalError(e)) throw e;
  }
  return keptRules(kept);
}
