import type { SerialTerminalConfig, TerminalConfig } from '../config/terminals.js';
import type { PunchSink } from '../journal/types.js';
import { AdmsSource } from './adms/index.js';
import { DahuaSource, readDahuaPassword } from './dahua/index.js';
import { BiotimeSource, readBiotimePassword } from './biotime/index.js';
import { HikvisionSource, readTerminalPassword } from './hikvision/index.js';
import { SerialSource, validateSerialTerminal } from './serial/index.js';
import { describeSerialFault } from './serial/fault.js';
import { configKeyOf } from './poll-outcome.js';
import type { Source, SourceDeps } from './types.js';
import { ZkSource } from './zk/zk-source.js';

/** A sink that tells delivery about new punches as soon as they are durable. */
export function wakingSink(deps: SourceDeps): PunchSink {
  return {
    ingest: (punches, opts) => {
      const r = deps.sink.ingest(punches, opts);
      if (r.added > 0) deps.onPunches?.(r.added);
      return r;
    },
  };
}

/** How often a serial terminal's state is copied to the terminals ledger for the status. */
const SERIAL_LEDGER_MS = 5000;

/** A serial reader as a Source: the reader itself, plus its state in the terminals ledger. */
class SerialTerminalSource implements Source {
  readonly name: string;
  private readonly reader: SerialSource;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cfg: SerialTerminalConfig,
    private readonly deps: SourceDeps,
  ) {
    this.name = cfg.name;
    this.reader = new SerialSource({
      config: cfg,
      sink: wakingSink(deps),
      logger: deps.logger,
      clock: deps.clock,
      handover: deps.serialHandover,
      ...(deps.cards ? { cards: deps.cards } : {}),
    });
  }

  async start(): Promise<void> {
    await this.reader.start();
    this.record();
    this.timer = setInterval(() => {
      // A code map changed while no card is read: the punches waiting under its cards take their codes.
      this.reader.checkCodeMap();
      this.record();
    }, SERIAL_LEDGER_MS);
    this.timer.unref();
  }

  get held(): number {
    return this.reader.status().pendingPunches;
  }

  /** Copies the reader's state to the ledger; never throws (a busy journal keeps the update for later). */
  private record(): void {
    const s = this.reader.status();
    // Open but its bytes make no reads: that is its trouble now (an alert), not an old disconnect.
    const fault =
      s.online && s.framingProblem
        ? s.framingProblem
        : s.lastError
          ? describeSerialFault(s.lastError, this.cfg, configKeyOf(this.deps, this.cfg.name))
          : null;
    try {
      const prev = this.deps.ledger.get(this.cfg.name);
      if (s.online && prev && !prev.online && prev.lastPollAt !== null)
        this.deps.logger.info(
          { terminal: this.cfg.name },
          `terminal ${this.cfg.name}: the serial reader at ${this.cfg.path} is open again`,
        );
      this.deps.ledger.update(this.cfg.name, {
        online: s.online,
        offlineSince: s.offlineSince,
        // A device that never opened was tried all the same: its row says OFFLINE with the
        // cause, as a ZK terminal that never answered does, not "not polled yet" under an alert.
        lastPollAt: s.lastLineAt ?? s.openedAt ?? s.lastOpenFailedAt,
        // While the port is open, its last line (or its opening) is the last contact.
        lastSuccessAt: s.online ? (s.lastLineAt ?? s.openedAt ?? undefined) : undefined,
        lastError: fault?.cause ?? null,
        lastErrorFix: fault?.fix ?? null,
      });
    } catch (e) {
      this.deps.logger.error({ terminal: this.cfg.name, err: String(e) }, 'could not record the serial terminal state');
    }
  }

  async stop(why?: 'restart'): Promise<void> {
    clearInterval(this.timer);
    await this.reader.stop({ handOver: why === 'restart' });
    this.record();
  }
}

/** Builds the source for one terminal of the config. */
export function createSource(cfg: TerminalConfig, deps: SourceDeps): Source {
  switch (cfg.kind) {
    case 'zk':
      return new ZkSource(cfg, deps);
    case 'hikvision':
      return new HikvisionSource(cfg, deps);
    case 'serial':
      return new SerialTerminalSource(cfg, deps);
    case 'adms':
      return new AdmsSource(cfg, deps);
    case 'dahua':
      return new DahuaSource(cfg, deps);
    case 'biotime':
      return new BiotimeSource(cfg, deps);
  }
}

/**
 * The checks of one terminal's config that need the source's own parsers (passed to
 * loadConfig, which must not import the sources). `at` is e.g. `terminals[2]`.
 */
export function checkTerminalConfig(cfg: TerminalConfig, at: string): string[] {
  return cfg.kind === 'serial' ? validateSerialTerminal(cfg, at) : [];
}

/**
 * The secret values of the terminals (Hikvision passwords), scrubbed from text that comes from
 * outside. A password that cannot be read now is left out (its source says why).
 */
export function terminalSecrets(terminals: readonly TerminalConfig[], env = process.env): string[] {
  const out: string[] = [];
  for (const t of terminals) {
    // Comm keys (numbers, often 4 digits) are not among them: they never enter a message, and the
    // logger redacts them by key; searched for as text they would hit timestamps and paths.
    if (t.kind !== 'hikvision' && t.kind !== 'dahua' && t.kind !== 'biotime') continue;
    try {
      out.push(
        t.kind === 'dahua'
          ? readDahuaPassword(t, env).password
          : t.kind === 'biotime'
            ? readBiotimePassword(t, env).password
            : readTerminalPassword(t, env).password,
      );
    } catch {
      /* unreadable or missing: nothing to scrub yet */
    }
  }
  return out;
}
