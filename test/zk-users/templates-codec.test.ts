/**
 * The template and user-record codecs: the upload buffer laid out byte for byte as pyzk's
 * HR_save_usertemplates packs it, round trips, and decoders that never throw on bad bytes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeTemplates,
  decodeUserRecord,
  decodeUserTemplatesUpload,
  encodeDataset,
  encodeTemplateRecord,
  encodeUserRecord,
  encodeUserTemplatesUpload,
  patchUserRecord,
  saveUserTempsArgs,
  type ZkUser,
} from '../../src/sources/zk/protocol/index.js';

const ann: ZkUser = { uid: 3, privilege: 0, password: '77', name: 'Ann', card: 4242, group: 1, userId: '1003' };

describe('the SAVE_USERTEMPS upload', () => {
  it('is laid out as pyzk packs it: III head, 0x02 + user, <bHbI table, <H + template', () => {
    const t0 = Buffer.from('aabbcc', 'hex');
    const t5 = Buffer.from('0102030405', 'hex');
    const record = encodeUserRecord(ann, 72);
    const buf = encodeUserTemplatesUpload([
      {
        record,
        templates: [
          { finger: 0, template: t0 },
          { finger: 5, template: t5 },
        ],
      },
    ]);
    const expected = Buffer.concat([
      Buffer.from('49000000' + '10000000' + '0c000000', 'hex'), // 73, 16, 12 (u32 LE each)
      Buffer.from([0x02]),
      record,
      Buffer.from('02' + '0300' + '10' + '00000000', 'hex'), // 2, uid 3, 0x10 + finger 0, offset 0
      Buffer.from('02' + '0300' + '15' + '05000000', 'hex'), // 2, uid 3, 0x10 + finger 5, offset 5
      Buffer.from('0300aabbcc', 'hex'),
      Buffer.from('05000102030405', 'hex'),
    ]);
    expect(buf.toString('hex')).toBe(expected.toString('hex'));
    expect(saveUserTempsArgs().toString('hex')).toBe('0c00000000000800');
  });

  it('round-trips users of 72 and 28 bytes with their fingers', () => {
    const arb = fc.record({
      size: fc.constantFrom(72 as const, 28 as const),
      users: fc.uniqueArray(
        fc.record({
          uid: fc.integer({ min: 1, max: 65535 }),
          fingers: fc.uniqueArray(
            fc.record({
              finger: fc.integer({ min: 0, max: 9 }),
              template: fc.uint8Array({ minLength: 1, maxLength: 2000 }),
            }),
            { selector: (f) => f.finger, maxLength: 10 },
          ),
        }),
        { selector: (u) => u.uid, maxLength: 8 },
      ),
    });
    fc.assert(
      fc.property(arb, ({ size, users }) => {
        const entries = users.map((u) => ({
          record: encodeUserRecord({ ...ann, uid: u.uid, userId: String(u.uid) }, size),
          templates: u.fingers.map((f) => ({ finger: f.finger, template: Buffer.from(f.template) })),
        }));
        const d = decodeUserTemplatesUpload(encodeUserTemplatesUpload(entries), size);
        expect(d.recordSize).toBe(size);
        expect(d.records).toEqual(entries.map((e) => e.record));
        expect(d.templates).toEqual(
          users.flatMap((u) =>
            u.fingers.map((f) => ({ uid: u.uid, finger: f.finger, valid: 1, template: Buffer.from(f.template) })),
          ),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('decoding a malformed upload throws a protocol error, never anything else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          decodeUserTemplatesUpload(Buffer.from(bytes));
        } catch (e) {
          expect((e as Error).name).toBe('ZkProtocolError');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('the template dataset (pyzk get_templates)', () => {
  it('reads back every record written, and never throws on arbitrary bytes', () => {
    const t = { uid: 9, finger: 6, valid: 1, template: Buffer.alloc(1500, 7) };
    const ds = encodeDataset([encodeTemplateRecord(t), encodeTemplateRecord({ ...t, finger: 7, valid: 3 })]);
    expect(ds.readUInt16LE(4)).toBe(1506);
    expect(decodeTemplates(ds)).toEqual({ templates: [t, { ...t, finger: 7, valid: 3 }], malformedBytes: 0 });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        const d = decodeTemplates(Buffer.from(bytes));
        expect(d.malformedBytes).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('user record patches', () => {
  it('change only the name and card, keeping every other byte of the record', () => {
    const raw = encodeUserRecord(ann, 72);
    raw.fill(0x5a, 40, 48); // time-zone / group bytes this code does not interpret
    const patched = patchUserRecord(raw, { name: 'Ann Lee-Wójcik', card: 7 });
    expect(decodeUserRecord(patched)).toEqual({ ...ann, name: 'Ann Lee-Wójcik', card: 7 });
    expect(patched.subarray(40, 48)).toEqual(Buffer.alloc(8, 0x5a));
    expect(patched.subarray(0, 11)).toEqual(raw.subarray(0, 11));
    const narrow = patchUserRecord(encodeUserRecord(ann, 28), { name: 'Bartholomew' });
    expect(decodeUserRecord(narrow)).toMatchObject({ name: 'Bartholo', userId: '1003', password: '77' });
  });
});
