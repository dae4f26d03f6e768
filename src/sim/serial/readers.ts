import { encodeRdm6300 } from '../../sources/serial/rdm6300.js';
import { encodeCardPacket } from '../../sources/serial/card-packet.js';
import { seededRandom } from '../../util/seeded-random.js';

/**
 * Card readers that do not print lines, for `punchgate sim serial --reader`:
 * - `rdm6300`: RDM6300/RDM630-type 125 kHz readers: STX, 10 hex digits (a version byte and the
 *   4-byte card number), 2 hex digits of XOR checksum, ETX, no line end; with `noise` > 0 a frame
 *   with a wrong checksum now and then (a card read at the edge of the field);
 * - `wiegand-keypad`: a Wiegand-to-RS232 converter with a keypad: a key as one bare byte (no line
 *   end; a 4-bit key as the ASCII of its hex digit, so `*` is "A" and `#` "B", as the converter's
 *   manual says), a pause, then the card as 10 digits and CRLF;
 * - `rdm6300-held`: the same module with each tag held on the antenna: its frame sent
 *   HELD_FRAMES times, HELD_EVERY_MS apart, as the module does while a tag stays in the field
 *   (arduino12's rdm6300 library: "RDM6300 sends packet every 65ms when tag is near"), in
 *   lower-case hex digits as some clones send them;
 * - `wiegand-keypad`: a Wiegand-to-RS232 converter with a keypad: a key as one bare byte (no line
 *   end; a 4-bit key as the ASCII of its hex digit, so `*` is "A" and `#` "B", as the converter's
 *   manual says), a pause, then the card as 10 digits and CRLF;
 * - `wiegand-keypad-8bit`: the same converter behind a keypad that sends 8-bit bursts (the key in
 *   the low nibble, its complement in the high one: key 1 is 0xE1, `*` 0x5A, `#` 0x4B), which the
 *   converter passes on as they are ("receives an 8bit 45 (hex), it sends 45 (hex) as it is");
 * - `noise`: a reader on the wrong framing or baud rate: bursts of bytes with no STX, ETX, CR or LF;
 * - `em18`: an EM-18-type module: the RDM6300's 10 hex digits and 2 of checksum with no STX, ETX or
 *   line end at all, a pause between reads (the module's datasheet: "10 ASCII DATA (card no.) + 2
 *   ASCII DATA (XOR result)"); with `noise` > 0 a read with a wrong checksum now and then;
 * - `7941e`: a Gwiot 7941E-type module on its UART: binary packets (STX, length, card type, 5
 *   serial bytes, BCC, ETX; sources/serial/card-packet.ts) whose version byte is 0x03, an ETX,
 *   so that every packet holds a byte that would end a printed frame; `noise`: a wrong BCC.
 * Each step is what the reader writes at once, then the pause before the next one.
 */
export type SimReader =
  'rdm6300' | 'rdm6300-held' | 'wiegand-keypad' | 'wiegand-keypad-8bit' | 'noise' | 'em18' | '7941e';

export const SIM_READERS: readonly SimReader[] = [
  'rdm6300',
  'rdm6300-held',
  'wiegand-keypad',
  'wiegand-keypad-8bit',
  'noise',
  'em18',
  '7941e',
];

/** Frames of one held tag, and the module's pause between them. */
export const HELD_FRAMES = 20;
export const HELD_EVERY_MS = 65;
/** The keys of a Wiegand keypad in key order, as 8-bit bursts send them: 0-9, `*`, `#`. */
const KEYS = '0123456789*#';

export interface ReaderStep {
  bytes: string;
  /** `repeat`: a frame sent again while the tag stays on the antenna (one read with the first). */
  kind: 'punch' | 'noise' | 'key' | 'repeat';
  /** What punchgate journals for a punch (the printed card number), the key, or the bytes. */
  shown: string;
  /** Silence after the bytes (ms) before the next step. */
  pauseMs: number;
}

/** The version (customer) byte the simulated RDM6300 tags carry. */
const TAG_VERSION = '1A';
const FIRST_CARD = 4_521_000;
/**
 * A person presses a key, then shows the card: far longer than the reader's gap (default gapMs 30),
 * and long enough that a busy box still reads the key before the card arrives.
 */
const KEY_PAUSE_MS = 500;
/** The next person's tag comes this long after the last frame of the one before (cardRepeatMs is 1 s). */
const HELD_AWAY_MS = 1500;
/** Between two reads of a reader that frames nothing: longer than the gapMs (30) that ends a read. */
const UNFRAMED_PAUSE_MS = 150;
/** The version byte of the simulated 7941E's tags: an ETX, which a printed frame would end at. */
const PACKET_TAG_VERSION = '03';
/** The readers that send the number printed on an EM4100 tag. */
const TAG_READERS: readonly SimReader[] = ['rdm6300', 'rdm6300-held', 'em18', '7941e'];

/**
 * Why `codes` cannot be sent by this reader, else undefined. An RDM6300 sends the number printed
 * on the tag as 8 hex digits: a code that is no such number made a frame of "nan" that was read as
 * a card (found by a new-user trial). The command checks it before it waits for a reader, so a
 * mistyped --codes is said at once, not once a reader connects (found by a rehearsal).
 */
export function readerCodesProblem(reader: SimReader, codes: readonly string[] | undefined): string | undefined {
  if (!TAG_READERS.includes(reader)) return undefined;
  const bad = (codes ?? []).find((code) => !/^\d{1,10}$/.test(code) || Number(code) > 0xffffffff);
  return bad === undefined
    ? undefined
    : `--codes ${bad}: an ${reader} reader sends the number printed on the tag: up to 10 decimal digits, at most 4294967295`;
}

export class ReaderSteps {
  private readonly random: () => number;
  private index = 0;

  constructor(
    private readonly reader: SimReader,
    private readonly opts: { codes?: readonly string[]; noise?: number; seed?: number },
  ) {
    this.random = seededRandom(opts.seed ?? 1);
    const problem = readerCodesProblem(reader, opts.codes);
    if (problem) throw new Error(problem);
  }

  /** The steps of the next read (and what may go with it). */
  next(): ReaderStep[] {
    const i = this.index++;
    const card = this.card(i);
    switch (this.reader) {
      case 'rdm6300': {
        const data = TAG_VERSION + Number(card).toString(16).toUpperCase().padStart(8, '0');
        const steps: ReaderStep[] = [{ bytes: encodeRdm6300(data), kind: 'punch', shown: card, pauseMs: 0 }];
        if (this.random() < (this.opts.noise ?? 0)) {
          const bad = TAG_VERSION + (Number(card) + 500_000).toString(16).toUpperCase().padStart(8, '0');
          steps.push({ bytes: encodeRdm6300(bad, { badChecksum: true }), kind: 'noise', shown: bad, pauseMs: 0 });
        }
        return steps;
      }
      case 'rdm6300-held': {
        const data = TAG_VERSION + Number(card).toString(16).padStart(8, '0');
        const frame = encodeRdm6300(data).toLowerCase();
        return Array.from({ length: HELD_FRAMES }, (_, k) => ({
          bytes: frame,
          kind: k === 0 ? ('punch' as const) : ('repeat' as const),
          shown: card,
          // The tag is taken away after its last frame: a pause longer than the module's own.
          pauseMs: k < HELD_FRAMES - 1 ? HELD_EVERY_MS : HELD_AWAY_MS,
        }));
      }
      case 'wiegand-keypad':
      case 'wiegand-keypad-8bit': {
        const k = (i * 7 + 3) % KEYS.length;
        const key = KEYS[k] as string;
        // 4-bit keys as the ASCII of their hex digit (`*` is "A", `#` "B"); 8-bit bursts as they are.
        const bytes =
          this.reader === 'wiegand-keypad' ? k.toString(16).toUpperCase() : String.fromCharCode(((~k & 0xf) << 4) | k);
        return [
          { bytes, kind: 'key', shown: key, pauseMs: KEY_PAUSE_MS },
          { bytes: `${card}\r\n`, kind: 'punch', shown: card, pauseMs: 0 },
        ];
      }
      case 'em18': {
        const frame = (n: number, bad?: boolean) =>
          encodeRdm6300(TAG_VERSION + n.toString(16).toUpperCase().padStart(8, '0'), { badChecksum: bad }).slice(1, -1);
        const steps: ReaderStep[] = [
          { bytes: frame(Number(card)), kind: 'punch', shown: card, pauseMs: UNFRAMED_PAUSE_MS },
        ];
        if (this.random() < (this.opts.noise ?? 0)) {
          const bad = frame(Number(card) + 500_000, true);
          steps.push({ bytes: bad, kind: 'noise', shown: bad, pauseMs: UNFRAMED_PAUSE_MS });
        }
        return steps;
      }
      case '7941e': {
        const serial = (n: number) => PACKET_TAG_VERSION + n.toString(16).padStart(8, '0');
        const steps: ReaderStep[] = [
          { bytes: encodeCardPacket(0x02, serial(Number(card))), kind: 'punch', shown: card, pauseMs: 0 },
        ];
        if (this.random() < (this.opts.noise ?? 0)) {
          const bad = serial(Number(card) + 500_000);
          steps.push({
            bytes: encodeCardPacket(0x02, bad, { badChecksum: true }),
            kind: 'noise',
            shown: bad,
            pauseMs: 0,
          });
        }
        return steps;
      }
      case 'noise': {
        let s = '';
        for (let k = 0; k < 32; k++) {
          // Anything but STX, ETX, CR and LF: no frame ever ends.
          let b = Math.floor(this.random() * 256);
          if (b === 0x02 || b === 0x03 || b === 0x0a || b === 0x0d) b = 0x7e;
          s += String.fromCharCode(b);
        }
        return [{ bytes: s, kind: 'noise', shown: s, pauseMs: 0 }];
      }
    }
  }

  /** Card numbers as printed on the tag: 10 digits. */
  private card(i: number): string {
    const codes = this.opts.codes;
    const c = codes && codes.length > 0 ? (codes[i % codes.length] as string) : String(FIRST_CARD + i);
    return c.padStart(10, '0');
  }
}
