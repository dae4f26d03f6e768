import { describe, expect, it } from 'vitest';
import { FrameSplitter, type Framing } from '../../src/sources/serial/frame-splitter.js';
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
