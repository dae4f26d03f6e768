/**
 * Old-firmware (28-byte) user records whose names are in the terminal's own character set (GBK):
 * read as UTF-8 they are no text, and that must never make the layout look like 72-byte records.
 */
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';
import { decodeUsers, encodeUser28, patchUserRecord } from '../../src/sources/zk/protocol/index.js';
import { NameCodec } from '../../src/util/name-codec.js';

const gbk = new NameCodec('gbk');

/** 18 records of 28 bytes = 504 bytes = 7 x 72: the size alone cannot tell them apart. */
function dataset(names: string[]): Buffer {
  const records = names.map((n, i) =>
    patchUserRecord(
      encodeUser28({ uid: i + 1, privilege: 0, password: '', name: '', card: 0, group: 1, userId: String(100 + i) }),
      {
        name: gbk.encode(n)!,
      },
    ),
  );
  const body = Buffer.concat(records);
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length);
  return Buffer.concat([head, body]);
}

describe('28-byte user records with GBK names', () => {
  it('are read as 28-byte records without a count hint, whatever their names read as in UTF-8', () => {
    const names = Array.from({ length: 18 }, (_, i) => ['张三', '李四', '王五六七'][i % 3]!);
    const d = decodeUsers(dataset(names));
    expect(d.recordSize).toBe(28);
    expect(d.records.map((u) => u.userId)).toEqual(names.map((_, i) => String(100 + i)));
  });

  it('getUsers reads the names in the terminal character set (encoding: gbk), over UDP from old firmware', async () => {
    const names = Array.from({ length: 18 }, (_, i) => ['张三', '李四', '王五六七'][i % 3]!);
    const t = await setup({ transport: 'udp', users: dataset(names) }, { encoding: 'gbk' });
    try {
      await t.zk.connect();
      const users = await t.zk.getUsers();
      expect(users.map((u) => u.name)).toEqual(names);
      expect(t.zk.lastDownload).toMatchObject({ recordSize: 28 });
    } finally {
      await t.cleanup();
    }
  });
});
