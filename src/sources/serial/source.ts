import { stat } from 'node:fs';
import type { SerialTerminalConfig } from '../../config/terminals.js';
import type { PunchSink } from '../../journal/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { backoffDelay } from '../../util/backoff.js';
import { UNKNOWN_CARD_PREFIX } from '../../punch.js';
import { ReloadingCodeMap } from './code-map.js';
import { WaitingCardRemap } from './card-remap.js';
import type { UnknownCardRemap } from '../types.js';
import { cardPunch, createLineParser, EDGE_CONTROL, type LineParser, type ParsedLine } from './line-parser.js';
import { DEFAULT_MAX_LINE_BYTES } from './line-splitter.js';
import { FrameSplitter, type Frame, type FrameResult } from './frame-splitter.js';
import { decodeRdm6300, RDM6300_TEXT_LENGTH } from './rdm6300.js';
import { decodeCardPacket } from './card-packet.js';
import { CardRepeats } from './card-repeats.js';
import { keypadKey } from './keypad.js';
import { trackTwoDigits } from './card-code.js';
import { elapsedMs } from '../../util/clock.js';
import { JournalWriter, type QueuedPunch } from './journal-writer.js';
import { NoiseLog } from './noise-log.js';
import { framingProblem } from './framing-problem.js';
import { listSerialPorts, openFailureHint, openSerialPort, type OpenSerialLink, type SerialLink } from './port.js';
import { LinkRoute, type SerialPortHandover } from './port-handover.js';
import { SerialStats, type SerialSourceStatus } from './status.js';

/** A frame of printable ASCII only: text a person or a reader wrote, not line noise. */
const PRINTABLE = /^[\x20-\x7e]+$/;
/** An RDM6300's frame text alone, as EM-18-type modules send it: no STX, ETX or line end around it. */
const BARE_EM4100 = /^[0-9A-Fa-f]{12}$/;
/** Several of them with no pause between (a busy box read them in one go). */
const BARE_EM4100_RUN = /^(?:[0-9A-Fa-f]{12}){2,}$/;
const HEX_LETTER = /[A-Fa-f]/;
/**
 * How long a key of `keypadStates` waits for its card: a person presses "check-out", then shows the
 * card within seconds. A key left pressed alone chooses nothing for a card shown later.
 */
export const KEY_STATE_MS = 10_000;

export interface SerialSourceOptions {
  config: SerialTerminalConfig;
  sink: PunchSink;
  logger: Logger;
  clock: Clock;
  /** Opens the device; default the `serialport` package. Tests pass a fake device. */
  openLink?: OpenSerialLink;
  /**
   * How often an open device checks that its path still exists (ms; 0 = never; default 1000).
   * A device hung up in the middle of a read (USB unplug, pty master gone) makes reads
   * return 0 bytes instead of failing, and serialport then never reports the disconnect.
   */
  presenceCheckMs?: number;
  maxLineBytes?: number;
  /**
   * Called when the journal fails in a way retrying cannot mend (disk full, I/O error,
   * corrupt file: see isFatalJournalError). The daemon exits then; without it the source
   * keeps holding the punches and retrying.
   */
  onJournalFatal?: (err: unknown) => void;
  /** Most punches held in memory while the journal cannot take them (default PUNCH_BUFFER_CAPACITY). */
  bufferCapacity?: number;
  /** Keeps the device open from this reader to the one that replaces it (a reload). */
  handover?: SerialPortHandover;
  /** Where the code map, at the start and each reload, remaps the waiting punches of unknown cards (WaitingCardRemap). */
  cards?: UnknownCardRemap;
}

export interface SerialStopOptions {
  /** A reader for the same terminal starts next (a reload): leave the device open for it. */
  handOver?: boolean;
}

/**
 * Reads one serial terminal: opens the device, cuts the byte stream into lines, turns each
 * line into a punch and writes the punches of each read to the journal (one transaction)
 * before the next read is looked at.
 * Survives line noise, unplugging (reopens with backoff) and a busy or failing journal (holds
 * the punches in memory and reads on, see PunchBuffer).
 */
export class SerialSource {
  private readonly cfg: SerialTerminalConfig;
  private readonly journal: JournalWriter;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly openLink: OpenSerialLink;
  private readonly presenceCheckMs: number;
  private readonly parse: LineParser;
  private readonly codeMap: ReloadingCodeMap | null;
  private readonly remap: WaitingCardRemap;
  private readonly splitter: FrameSplitter;
  private gapTimer: NodeJS.Timeout | null = null;
  private readonly noise: NoiseLog;
  private readonly stats: SerialStats;
  private readonly repeats: CardRepeats;
  /** A key of `keypadStates` pressed: the state of the card read that follows it. */
  private keyState: { state: number; at: number } | null = null;

  private running = false;
  private link: SerialLink | null = null;
  /** Where the open device's bytes go: this reader, until it hands the device over. */
  private route: LinkRoute | null = null;
  private readonly handover: SerialPortHandover | undefined;
  private attempt = 0;
  private lastOpenError: string | null = null;
  /** The port list's note last said (udev missing): said once, not with every warning. */
  private listNoteSaid: string | undefined;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private presenceTimer: NodeJS.Timeout | null = null;

  constructor(opts: SerialSourceOptions) {
    this.cfg = opts.config;
    this.log = opts.logger.child({ terminal: opts.config.name });
    this.clock = opts.clock;
    this.openLink = opts.openLink ?? openSerialPort;
    this.presenceCheckMs = opts.presenceCheckMs ?? 1000;
    this.handover = opts.handover;
    this.parse = createLineParser(this.cfg, this.clock);
    this.remap = new WaitingCardRemap(opts.cards, this.cfg.name, this.log);
    this.codeMap = this.cfg.codeMap
      ? new ReloadingCodeMap(this.cfg.codeMap, {
          clock: this.clock,
          logger: this.log,
          onReload: (map) => this.remap.loaded(map),
        })
      : null;
    this.splitter = new FrameSplitter({
      framing: this.cfg.framing,
      maxBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      frameBytes: this.cfg.frameBytes,
      gapMs: this.cfg.gapMs,
      keypadMaxBytes: this.cfg.keypadMaxBytes,
      // Keypads come with card readers: a clock's line is never cut at an 8-bit key byte.
      burstKeys: this.cfg.format === 'card' && this.cfg.keypadMaxBytes > 0,
    });
    this.repeats = new CardRepeats(this.cfg.format === 'card' ? this.cfg.cardRepeatMs : 0);
    this.noise = new NoiseLog({ logger: this.log, clock: this.clock });
    this.stats = new SerialStats(this.cfg.name, this.cfg.path);
    this.journal = new JournalWriter({
      sink: opts.sink,
      timezone: this.cfg.timezone,
      terminal: this.cfg.name,
      log: this.log,
      stats: this.stats,
      pauseInput: () => this.link?.pause(),
      resumeInput: () => this.link?.resume(),
      onFatal: opts.onJournalFatal,
      capacity: opts.bufferCapacity,
    });
  }

  /** Opens the device once; when that fails the source keeps retrying in the background. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    // The map this reader starts with (at the daemon's start, or a reload of the config) is the
    // one in force: the punches waiting under card:<number> of the cards it holds take their codes.
    if (this.codeMap) this.remap.loaded(this.codeMap.current);
    await this.connect();
  }

  /**
   * Looks whether the code map file changed (at most every 10 s) while no card is read, and applies
   * a map a busy journal kept from being applied. Called every few seconds by the terminal's source.
   */
  checkCodeMap(): void {
    this.codeMap?.check();
    this.remap.retry();
  }

  async stop(opts: SerialStopOptions = {}): Promise<void> {
    this.running = false;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.presenceTimer) clearInterval(this.presenceTimer);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.reconnectTimer = this.presenceTimer = this.gapTimer = null;
    const link = this.link;
    const route = this.route;
    this.link = this.route = null;
    // Handed over with the line it was reading: the next reader goes on with it.
    if (link && route && opts.handOver && this.handover)
      this.handover.park(this.cfg.name, this.cfg, link, route, this.splitter.unfinished());
    else if (link) await link.close();
    this.stats.markStopped(this.clock.now());
    await this.journal.stop();
    this.noise.flush();
  }

  status(): SerialSourceStatus {
    const s = this.stats.snapshot(this.journal.pending);
    return { ...s, framingProblem: framingProblem(s, this.cfg, this.splitter.maxBytes) };
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    if (!this.running) return;
    let link: SerialLink | null = null;
    const handlers = {
      onData: (chunk: Buffer) => this.onChunk(chunk),
      onClose: (err: Error | null) => {
        if (link) this.onLost(link, err);
      },
    };
    let route: LinkRoute;
    let pending: Buffer | undefined;
    try {
      const taken = await this.handover?.take(this.cfg.name, this.cfg, handlers);
      if (taken) {
        ({ link, route, pending } = taken);
      } else {
        route = new LinkRoute(handlers);
        link = await this.openLink(this.cfg, route.handlers);
      }
    } catch (e) {
      this.onOpenFailed(e);
      return;
    }
    if (!this.running) {
      await link.close();
      return;
    }
    this.link = link;
    this.route = route;
    this.attempt = 0;
    this.lastOpenError = null;
    this.splitter.reset();
    this.stats.markOpened(this.clock.now());
    this.log.info(
      { path: this.cfg.path, baudRate: this.cfg.baudRate },
      pending ? 'serial device open (kept open across the reload)' : 'serial device open',
    );
    if (this.journal.full) link.pause();
    else if (pending) link.resume();
    this.watchPresence(link);
    // What the reader printed while the terminal was being reloaded, its unfinished line first.
    if (pending && pending.length > 0) this.onChunk(pending);
  }

  private onOpenFailed(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    const delay = this.reconnectDelay();
    const now = this.clock.now();
    this.stats.markOpenFailed(now, message, now + delay);
    if (message !== this.lastOpenError) {
      // Say it once per kind of failure; the retries every few seconds go to debug.
      this.lastOpenError = message;
      const hint = openFailureHint(e);
      void listSerialPorts().then(({ paths, listNote }) => {
        // Why the list is only /dev's: said with the first warning, not with every one after.
        const said = listNote !== undefined && listNote === this.listNoteSaid;
        if (listNote !== undefined) this.listNoteSaid = listNote;
        this.log.warn(
          { path: this.cfg.path, error: message, hint, available: paths, ...(said ? {} : { listNote }) },
          'cannot open serial device; retrying',
        );
      });
    } else {
      this.log.debug({ path: this.cfg.path, error: message, retryInMs: delay }, 'cannot open serial device');
    }
    this.scheduleReconnect(delay);
  }

  /** The wait before the next attempt to open the device (no jitter: one box, one device). */
  private reconnectDelay(): number {
    return backoffDelay(this.attempt++, { baseMs: this.cfg.reconnectMinMs, maxMs: this.cfg.reconnectMaxMs });
  }

  private scheduleReconnect(delay: number): void {
    if (!this.running) return;
    this.stats.markNextAttempt(this.clock.now() + delay);
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
  }

  private onLost(link: SerialLink, err: Error | null): void {
    if (this.link !== link) return;
    this.link = null;
    if (this.presenceTimer) clearInterval(this.presenceTimer);
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.presenceTimer = this.gapTimer = null;
    this.repeats.reset();
    this.keyState = null;
    if (this.splitter.reset()) {
      this.stats.markLine(this.clock.now());
      this.stats.markMalformed();
      this.noise.note('line cut off by the disconnect', '');
    }
    const message = err?.message ?? 'device closed';
    this.stats.markLost(this.clock.now(), message);
    this.log.warn({ path: this.cfg.path, error: message }, 'serial device lost; reconnecting');
    this.scheduleReconnect(this.reconnectDelay());
  }

  /** Closes a device whose path has vanished, for drivers that do not fail the read. */
  private watchPresence(link: SerialLink): void {
    if (this.presenceCheckMs <= 0) return;
    this.presenceTimer = setInterval(() => {
      stat(this.cfg.path, (err) => {
        if (err?.code !== 'ENOENT' || this.link !== link) return;
        this.onLost(link, new Error(`${this.cfg.path} disappeared`));
        void link.close();
      });
    }, this.presenceCheckMs);
    this.presenceTimer.unref();
  }

  private onChunk(chunk: Buffer): void {
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.gapTimer = null;
    this.onFrames(this.splitter.push(chunk, elapsedMs(this.clock)), chunk.length);
    this.armGapTimer();
  }

  /**
   * A lone key byte (or a read framed by silence) ends when nothing follows it for gapMs. The
   * timer tells the splitter when it fired: late, the box was busy and the silence unsure, and a
   * short read the splitter holds over it is waited for again.
   */
  private armGapTimer(): void {
    if (!this.splitter.waitsForSilence) return;
    this.gapTimer = setTimeout(() => {
      this.gapTimer = null;
      this.onFrames(this.splitter.idle(elapsedMs(this.clock)), 0);
      this.armGapTimer();
    }, this.cfg.gapMs);
    this.gapTimer.unref();
  }

  private onFrames({ frames, overflows }: FrameResult, bytes: number): void {
    const now = this.clock.now();
    const at = elapsedMs(this.clock);
    for (let i = 0; i < overflows; i++) {
      this.stats.markLine(now);
      this.stats.markMalformed();
      this.stats.markOverflow();
      this.noise.note(`longer than ${this.splitter.maxBytes} bytes without an end (framing: ${this.cfg.framing})`, '');
    }
    const punches: QueuedPunch[] = [];
    let framed = false;
    for (const frame of frames.flatMap((f) => this.bareEm4100Reads(f))) {
      const parsed = this.parseFrame(frame);
      if (parsed.kind === 'blank') continue;
      this.stats.markLine(now);
      if (parsed.kind === 'key') {
        // A keypad key is a read of its own: never glued to the card or line that follows.
        framed = true;
        this.stats.markKey();
        const state = this.cfg.keypadStates?.[parsed.key];
        if (state !== undefined) this.keyState = { state, at };
        if (this.cfg.keypad === 'count') this.log.debug({ key: parsed.key, state }, 'keypad key (not a punch)');
        continue;
      }
      if (parsed.kind === 'malformed') {
        this.stats.markMalformed();
        if ('badChecksum' in parsed && parsed.badChecksum) {
          framed = true;
          this.stats.markBadChecksum();
        }
        // A line of plain text that reads as nothing (a stray "garbage line") still shows the
        // framing works: only bytes that make no line at all, or noise, are a framing problem
        // (found by a new-user trial: one such line raised the alert to change a working framing).
        if ((frame.end === 'line' || frame.end === 'etx') && PRINTABLE.test(frame.text)) framed = true;
        this.noise.note(parsed.reason, frame.text);
        continue;
      }
      framed = true;
      if (this.repeats.isRepeat(parsed.code, at)) {
        // The card still on the reader (sent again every ~65 ms): the read it began is journalled.
        this.stats.markCardRepeat();
        continue;
      }
      const key = this.keyState;
      this.keyState = null;
      const punchState = key && at - key.at <= KEY_STATE_MS ? key.state : undefined;
      punches.push(this.toPunch(parsed.code, parsed.logTime, punchState));
    }
    this.stats.markBytes(now, bytes, framed);
    // The lines of this read are in the journal before the next read is looked at.
    this.journal.add(punches);
  }

  /**
   * A frame that a silence ended holding several EM-18 reads: each read on its own. A silence is
   * seen when the box reads, not when the bytes came: a box busy for longer than the pause between
   * two reads gets both at once, and the 24 digits were journalled as one card nobody holds (found
   * by a device trial through the daemon). Each read is then checked by its own checksum.
   */
  private bareEm4100Reads(frame: Frame): Frame[] {
    if (this.cfg.format !== 'card' || frame.stx || (frame.end !== 'gap' && frame.end !== 'length')) return [frame];
    if (!BARE_EM4100_RUN.test(frame.text)) return [frame];
    const reads = frame.text.match(/.{12}/g) ?? [];
    // Digits alone may be one long number a reader printed (no EM-18's): split only when each
    // piece checks, or when hex letters show the digits are no decimal number.
    const checks = reads.every((text) => decodeRdm6300(text, this.cfg.cardNumber)?.kind === 'card');
    if (!checks && !HEX_LETTER.test(frame.text)) return [frame];
    return reads.map((text) => ({ ...frame, text }));
  }

  /** A frame as a key, a punch, noise or nothing. */
  private parseFrame(
    frame: Frame,
  ): ParsedLine | { kind: 'key'; key: string } | { kind: 'malformed'; reason: string; badChecksum?: true } {
    if (frame.packet) {
      if (this.cfg.format !== 'card')
        return {
          kind: 'malformed',
          reason: 'a binary card packet (STX, length, type, card, BCC, ETX): set format: card',
        };
      const read = decodeCardPacket(frame.text, frame.end === 'etx', this.cfg.cardNumber);
      if (read.kind === 'card') return cardPunch(read.card, this.clock, this.cfg.timezone);
      return { kind: 'malformed', reason: read.reason, ...(read.badChecksum ? { badChecksum: true } : {}) };
    }
    // An EM-18-type module's read (framing gap or length): checked by its checksum like an RDM6300
    // frame. Read as a printed card, its 12 digits were journalled, checksum included, and a read
    // at the edge of the field became a card nobody holds (found by a device trial).
    if (
      this.cfg.format === 'card' &&
      !frame.stx &&
      (frame.end === 'gap' || frame.end === 'length') &&
      BARE_EM4100.test(frame.text)
    ) {
      const read = decodeRdm6300(frame.text, this.cfg.cardNumber)!;
      if (read.kind === 'card') return cardPunch(read.card, this.clock, this.cfg.timezone);
      // Twelve decimal digits that do not check are more likely a reader that prints a 12-digit
      // number with no line end than an EM-18 misread (whose hex shows a letter in all but 0.4 % of
      // tags): read as printed, as before.
      if (HEX_LETTER.test(frame.text))
        return { kind: 'malformed', reason: read.reason.replace('RDM6300', 'EM4100'), badChecksum: true };
    }
    const text = frame.text.replace(EDGE_CONTROL, '');
    const key = keypadKey(text, this.cfg.keypadMaxBytes);
    if (key !== null) return { kind: 'key', key };
    // Cut short: a partial record before a silence, or bytes an STX interrupted. Never a code.
    if (this.cfg.framing === 'length' && frame.end !== 'length')
      return { kind: 'malformed', reason: `cut short: ${frame.text.length} of ${this.cfg.frameBytes} bytes` };
    if (frame.end === 'stx') return { kind: 'malformed', reason: 'bytes without an end before an STX' };
    if (frame.stx && this.cfg.format === 'card') {
      const read = decodeRdm6300(text, this.cfg.cardNumber);
      if (read?.kind === 'bad-checksum') return { kind: 'malformed', reason: read.reason, badChecksum: true };
      // Checked by its checksum: a card as it is, whatever `pattern` says of printed lines.
      if (read) return cardPunch(read.card, this.clock, this.cfg.timezone);
      // An RDM6300 frame's length with bytes that are no hex digits: line noise in a read, never
      // a card (found by a new-user trial: "ZZ000000QQ10" was journalled and delivered).
      // (A 10-digit mag-stripe badge, `;0012345678?`, has that length too: it is read as a badge.)
      if (text.length === RDM6300_TEXT_LENGTH && trackTwoDigits(text) === null)
        return { kind: 'malformed', reason: 'an RDM6300 frame with bytes that are not hex digits (line noise?)' };
    }
    return this.parse(frame.text);
  }

  private toPunch(code: string, logTime: string, punchState: number | undefined): QueuedPunch {
    const base = { terminal: this.cfg.name, device: '', logTime, ...(punchState !== undefined ? { punchState } : {}) };
    if (!this.codeMap) return { punch: { ...base, biometricCode: code } };
    const mapped = this.codeMap.lookup(code);
    if (mapped !== undefined) return { punch: { ...base, biometricCode: mapped } };
    return { punch: { ...base, biometricCode: UNKNOWN_CARD_PREFIX + code }, unknownCard: code };
  }
}
