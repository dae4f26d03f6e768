import type { AdmsTerminalConfig } from '../config/terminals.js';
import type { PunchSink, SourceStateStore, TerminalRecord } from '../journal/types.js';
import type { ClockStep } from '../util/clock-steps.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { ListenRegistry } from './listen.js';
import type { SerialPortHandover } from './serial/port-handover.js';

/** Where a source records what its terminal last reported (the journal's terminals table). */
export interface TerminalLedger {
  get(name: string): TerminalRecord | undefined;
  update(name: string, patch: Partial<Omit<TerminalRecord, 'name'>>): TerminalRecord;
}

/** What the clear policy asks of the journal before a terminal's log may be erased. */
/**
 * Gives the waiting punches of a terminal's unknown cards (`card:<number>`) the code a code map
 * holds for them now (JournalQueries.remapUnknownCards): a punch goes out under the map in force
 * when it is delivered, not the one when it was read.
 */
export interface UnknownCardRemap {
  remapUnknownCards(terminal: string, lookup: (card: string) => string | undefined): { remapped: number; kept: number };
}

export interface DeliveryCheck {
  undeliveredCount(terminal: string, device?: string): number;
  deliveredAmong(
    terminal: string,
    device: string,
    punches: readonly { biometricCode: string; logTime: string }[],
  ): number;
}

/**
 * The one receiver push terminals (kind: adms) report to: one HTTP port for all of them. Each
 * push terminal's source registers its terminal here and unregisters it when it stops.
 */
export interface PushTerminalRegistry {
  register(cfg: AdmsTerminalConfig): void;
  unregister(name: string): void;
}

/** Where steps of the box clock are told. */
export interface ClockSteps {
  onStep(listener: (s: ClockStep) => void): () => void;
  /** The net step of the box clock lately (ms; negative: back; 0: none, or undone). */
  netStepMs(): number;
  /** punchgate set terminal `name`'s clock to the box's now (syncClock). */
  terminalClockSet(name: string): void;
  /** Whether punchgate set that terminal's clock from the box's before one of the recent steps. */
  terminalSetBeforeStep(name: string): boolean;
}

/** Logged instead of setting a terminal's clock that agreesBeforeBoxStep. */
export const BOX_STEPPED_NOT_SET =
  "terminal clock not set: it agrees with the box's clock from before the box clock stepped (set the box clock right)";

/**
 * Whether a terminal `skewSeconds` off the box's clock agrees with the box's clock as it ran
 * before its recent steps: then the box stepped, not the terminal, and the terminal's clock is
 * neither blamed nor set from the box's. Not so for a terminal whose clock punchgate itself set
 * from the box's before the step (`terminal`, its name): it agrees by punchgate's doing, and the
 * box's clock of now is taken as syncClock always takes it.
 */
export function agreesBeforeBoxStep(
  skewSeconds: number,
  steps: ClockSteps | undefined,
  toleranceSeconds: number,
  terminal?: string,
): boolean {
  const step = steps?.netStepMs() ?? 0;
  if (step === 0 || Math.abs(skewSeconds + step / 1000) > toleranceSeconds) return false;
  return terminal === undefined || !steps?.terminalSetBeforeStep(terminal);
}

/** Everything a source needs from around it: nothing reaches past the journal. */
export interface SourceDeps {
  sink: PunchSink;
  ledger: TerminalLedger;
  deliveryCheck: DeliveryCheck;
  /** Where a serial reader's code map, loaded or reloaded, remaps the waiting punches of its unknown cards (absent: never). */
  cards?: UnknownCardRemap;
  /** What a source keeps between runs (an event cursor...); written with punches through `sink.ingest`. */
  state: SourceStateStore;
  logger: Logger;
  clock: Clock;
  /** Called after new punches were journalled (wakes delivery). */
  onPunches?: (added: number) => void;
  /** The push terminal receiver, when `adms.listen` is set. */
  pushReceiver?: PushTerminalRegistry;
  /** Where terminals that post in their own format (Hikvision HTTP Listening) are heard: the same receiver. */
  listeners?: ListenRegistry;
  /** How fixes name a terminal's settings: its place in the config (`terminals[2]`). */
  configKey?: (terminal: string) => string;
  /** Steps of the box clock (the daemon's ClockStepWatch): cron schedules are re-armed after each. */
  clockSteps?: ClockSteps;
  /** Keeps a serial device open while its terminal's reader restarts (a reload). */
  serialHandover?: SerialPortHandover;
}

/** A running source of punches (one per terminal). */
export interface Source {
  readonly name: string;
  start(): Promise<void>;
  /**
   * Stops collecting; resolves when no write to the journal is under way. `restart`: a source for
   * the same terminal starts next (its config changed), which may take over what this one holds open.
   */
  stop(why?: 'restart'): Promise<void>;
  /** Punches received but not yet in the journal (it is busy): held in memory by the source. */
  readonly held?: number;
}
