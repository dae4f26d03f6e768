import { describe, expect, it } from 'vitest';
import { FrameSplitter, type FrameResult, type Framing } from '../../src/sources/serial/frame-splitter.js';
import { decodeCardPacket, encodeCardPacket } from '../../src/sources/serial/card-packet.js';
import { decodeRdm6300, encodeRdm6300 } from '../../src/sources/serial/rdm6300.js';

const splitter = (framing: Framing, over: { frameBytes?: number; maxBytes?: number } = {}) =>
  new FrameSplitter({
    framing,
    maxBytes: over.maxBytes ?? 64,
    gapMs: 30,
    keypadMaxBytes: 1,
    frameBytes: over.frameBytes,
  });
const push = (s: FrameSplitter, text: string, at = 0) => s.push(Buffer.from(text, 'latin1'), at);
const texts = (r: { frames: { text: string }[] }) => r.frames.map((f) => f.text);

describe('FrameSplitter', () => {
  it('auto: STX/ETX frames with no line end, one after another and split across reads', () => {
    const s = splitter('auto');
    const a = encodeRdm6300('1A0044FC28');
    const b = encodeRdm6300('1A0044FC29');
    expect(push(s, a + b).frames).toEqual([
      { text: a.slice(1, -1), end: 'etx', stx: true },
      { text: b.slice(1, -1), end: 'etx', stx: true },
    ]);
    expect(texts(push(s, a.slice(0, 5)))).toEqual([]);
    expect(texts(push(s, a.slice(5)))).toEqual([a.slice(1, -1)]);
  });

  it('auto: CR, LF and CRLF lines as before; STX data CRLF ETX is one frame', () => {
    const s = splitter('auto');
    expect(texts(push(s, '0004521000\r\n0004521001\n0004521002\r'))).toEqual([
      '0004521000',
      '0004521001',
      '0004521002',
    ]);
    expect(push(s, '\x020004521003\r\n\x03').frames).toEqual([{ text: '0004521003', end: 'line', stx: true }]);
    // A stray STX swallows nothing: the next line end ends its frame.
    expect(texts(push(s, '\x00\x01\x02\n#!!\n'))).toEqual(['\x00\x01', '#!!']);
    expect(texts(push(s, '12\x03'))).toEqual(['12']);
  });

  it('auto: a bare key byte before a silence is a frame of its own, never glued to the card line', () => {
    const s = splitter('auto');
    expect(texts(push(s, '3', 0))).toEqual([]);
    expect(s.waitsForSilence).toBe(true);
    // The card comes after a silence: the key is cut off first.
    expect(push(s, '0000123478\r\n', 200).frames).toEqual([
      { text: '3', end: 'gap', stx: false },
      { text: '0000123478', end: 'line', stx: false },
    ]);
    // Or the timer says the silence has passed.
    push(s, '#', 300);
    expect(s.idle().frames).toEqual([{ text: '#', end: 'gap', stx: false }]);
    // A line in pieces with pauses is still one line: only short pieces wait on a silence.
    push(s, '00001', 400);
    expect(s.waitsForSilence).toBe(false);
    expect(texts(push(s, '23478\r\n', 500))).toEqual(['0000123478']);
  });

  it('auto: a key byte just before an STX frame is cut off by the STX', () => {
    const s = splitter('auto');
    const f = encodeRdm6300('1A0044FC28');
    expect(push(s, '7' + f).frames).toEqual([
      { text: '7', end: 'stx', stx: false },
      { text: f.slice(1, -1), end: 'etx', stx: true },
    ]);
  });

  it('line: exactly the old line splitter (STX/ETX stay in the line)', () => {
    const s = splitter('line');
    expect(texts(push(s, '\x020004521000\x03\r\n'))).toEqual(['\x020004521000\x03']);
  });

  it('length, gap and etx framings', () => {
    const len = splitter('length', { frameBytes: 4 });
    expect(texts(push(len, 'abcdefgh', 0))).toEqual(['abcd', 'efgh']);
    expect(texts(push(len, 'ab', 10))).toEqual([]);
    // A partial record before a silence is dropped as a short frame: the next one is whole.
    expect(push(len, 'wxyz', 100).frames).toEqual([
      { text: 'ab', end: 'gap', stx: false },
      { text: 'wxyz', end: 'length', stx: false },
    ]);
    const gap = splitter('gap');
    expect(texts(push(gap, 'card\r\n1', 0))).toEqual([]);
    expect(texts(gap.idle())).toEqual(['card\r\n1']);
    const etx = splitter('etx');
    expect(texts(push(etx, 'abc\r\ndef\x03'))).toEqual(['abc\r\ndef']);
  });

  it('gap: a read a busy box cut in two is one read again once the read length is known; two reads are never made one', () => {
    const gap = splitter('gap');
    // Before the read length is known, a silence is a silence, sure or not: as it always was.
    push(gap, '00045', 0);
    expect(texts(gap.idle(200))).toEqual(['00045']);
    // Five reads of 10 ended by a timer on time: the reader's read length.
    let t = 1000;
    const read = (card: string) => {
      push(gap, card, t);
      expect(texts(gap.idle(t + 31))).toEqual([card]);
      t += 1000;
    };
    for (const card of ['0004521000', '0004521001', '0004521002', '0004521003', '0004521004']) read(card);
    // The timer fired late (the box was busy 200 ms): the half waits for its rest.
    push(gap, '00045', t);
    expect(texts(gap.idle(t + 200))).toEqual([]);
    push(gap, '21005', t + 201);
    expect(texts(gap.idle(t + 232))).toEqual(['0004521005']);
    t += 1000;
    // The timer never ran: the rest came in a read after the busy spell.
    push(gap, '00045', t);
    expect(texts(push(gap, '21006', t + 150))).toEqual([]);
    expect(texts(gap.idle(t + 181))).toEqual(['0004521006']);
    t += 1000;
    // A whole read, then the next after the busy spell: two reads, as before.
    push(gap, '0004521007', t);
    expect(texts(push(gap, '0004521008', t + 150))).toEqual(['0004521007']);
    expect(texts(gap.idle(t + 181))).toEqual(['0004521008']);
    t += 1000;
    // A half, then its rest and the next read in one piece: two reads of the read length.
    push(gap, '00045', t);
    push(gap, '210090004521010', t + 150);
    expect(texts(gap.idle(t + 181))).toEqual(['0004521009', '0004521010']);
    t += 1000;
    // A short read of another kind is late, never lost; glued to the next read, cut where it was.
    push(gap, '12345678', t);
    expect(texts(gap.idle(t + 200))).toEqual([]);
    expect(texts(gap.idle(t + 231))).toEqual(['12345678']);
    t += 1000;
    push(gap, '1234', t);
    push(gap, '0004521011', t + 150);
    expect(texts(gap.idle(t + 181))).toEqual(['1234', '0004521011']);
    t += 1000;
    // A box busy for ever: the half ends after a few tries, as before.
    push(gap, '00045', t);
    for (let i = 1; i <= 3; i++) expect(texts(gap.idle(t + 200 * i))).toEqual([]);
    expect(texts(gap.idle(t + 800))).toEqual(['00045']);
  });

  it('drops a frame that grows past the bound once, and reads on after its end', () => {
    const s = splitter('auto', { maxBytes: 16 });
    const r = push(s, 'x'.repeat(40));
    expect(r).toEqual({ frames: [], overflows: 1 });
    expect(push(s, 'y'.repeat(40)).overflows).toBe(0);
    expect(texts(push(s, '\n0004521000\n'))).toEqual(['0004521000']);
  });
});

describe('RDM6300 frames', () => {
  it('checks the XOR checksum and gives the number printed on the tag (decimal of the last 4 bytes)', () => {
    // The EM-18 datasheet's example: 4500C5D1E9 B8, number on the card 0012964329.
    expect(decodeRdm6300('4500C5D1E9B8', 'printed')).toEqual({ kind: 'card', card: '0012964329' });
    expect(decodeRdm6300('4500c5d1e9b8', 'hex')).toEqual({ kind: 'card', card: '4500C5D1E9' });
    expect(decodeRdm6300('4500C5D1E9B9', 'printed')).toMatchObject({ kind: 'bad-checksum' });
    expect(decodeRdm6300('0004521000', 'printed')).toBeNull();
    // wiegand26: the last 3 bytes, as a Wiegand 26 reader and a converter give the same tag.
    const tag = encodeRdm6300('1A12345678').slice(1, -1);
    expect(decodeRdm6300(tag, 'printed')).toEqual({ kind: 'card', card: '0305419896' });
    expect(decodeRdm6300(tag, 'wiegand26')).toEqual({ kind: 'card', card: '0003430008' });
    // The converter's manual: Wiegand data 1E256 is sent as 0000123478.
    expect(decodeRdm6300(encodeRdm6300('000001E256').slice(1, -1), 'wiegand26')).toEqual({
      kind: 'card',
      card: '0000123478',
    });
    expect(encodeRdm6300('4500C5D1E9')).toBe('\x024500C5D1E9B8\x03');
  });
});

describe('binary card packets (7941E-type modules)', () => {
  const packet = (hex: string) => Buffer.from(hex.replace(/ /g, ''), 'hex').toString('latin1');
  // The module manual's examples, as sellers and projects reprint them.
  const a = packet('02 0A 02 2E 00 B6 D7 B5 F2 03');
  const b = packet('02 0A 02 06 00 8E 6D 5D B0 03');
  const cards = (r: FrameResult) =>
    r.frames.map((f) => (f.packet ? decodeCardPacket(f.text, f.end === 'etx', 'printed') : f.text));

  it('are cut by their length byte, whatever bytes they hold, split across reads or back to back', () => {
    const s = splitter('auto');
    expect(cards(push(s, a + b))).toEqual([
      { kind: 'card', card: '0011982773' },
      { kind: 'card', card: '0009334109' },
    ]);
    // ETX, LF, CR and STX inside a card's bytes are the card's.
    const nasty = encodeCardPacket(0x02, '030A0D0203');
    for (const cut of [1, 2, 3, 5, 9]) {
      expect(texts(push(s, nasty.slice(0, cut)))).toEqual([]);
      expect(cards(push(s, nasty.slice(cut)))).toEqual([{ kind: 'card', card: '0168624643' }]);
    }
    expect(cards(splitter('etx').push(Buffer.from(b, 'latin1'), 0))).toEqual([{ kind: 'card', card: '0009334109' }]);
  });

  it('a packet that lost a byte is said and the next one is read; a wrong BCC is a bad checksum', () => {
    const s = splitter('auto');
    const lost = a.slice(0, 4) + a.slice(5);
    expect(cards(push(s, lost + b))).toEqual([
      { kind: 'bad', reason: expect.stringMatching(/cut short or without its ETX/) },
      { kind: 'card', card: '0009334109' },
    ]);
    expect(cards(push(s, encodeCardPacket(0x02, '2E00B6D7B5', { badChecksum: true })))).toEqual([
      { kind: 'bad', badChecksum: true, reason: 'binary card packet BCC wrong (sent A8, data gives F2)' },
    ]);
    // A MIFARE card: 4 serial bytes, numbered as `cardNumber` says (the module manual's card 6B 3D 12 D6).
    const mifare = push(s, encodeCardPacket(0x01, '6B3D12D6')).frames[0]!;
    const uid = (style?: 'printed' | 'hex' | 'wiegand26') => decodeCardPacket(mifare.text, true, style);
    expect(uid()).toEqual({ kind: 'card', card: '6B3D12D6' });
    expect(uid('hex')).toEqual({ kind: 'card', card: '6B3D12D6' });
    expect(uid('printed')).toEqual({ kind: 'card', card: '1799164630' });
    expect(uid('wiegand26')).toEqual({ kind: 'card', card: '0004002518' });
    // A 7-byte UID: every digit of its decimal kept (beyond a double's exact integers).
    const long = push(s, encodeCardPacket(0x01, '04A1B2C3D4E5F6')).frames[0]!;
    expect(decodeCardPacket(long.text, true, 'printed')).toEqual({ kind: 'card', card: '1303689068602870' });
    // Keyboard data (type 0xFF) is no card: said as what it is.
    expect(cards(push(s, encodeCardPacket(0xff, '31')))).toEqual([
      { kind: 'bad', reason: 'a binary packet of keyboard data (type 0xFF), not a card' },
    ]);
  });

  it('a stray STX before a line end and a printed line opens no packet', () => {
    const s = splitter('auto');
    expect(texts(push(s, '\x02\n0004521000\r\n'))).toEqual(['0004521000']);
    expect(texts(push(s, '\x02\x0a\x02\x03'))).toEqual([]);
    expect(s.unfinished().toString('latin1')).toBe('\x02\x0a\x02\x03');
    // Unplugged in the middle of a packet, or right after its length byte: a read cut off, said.
    expect(s.reset()).toBe(true);
    push(s, '\x02\x0a');
    expect(s.reset()).toBe(true);
    expect(s.reset()).toBe(false);
  });
});
