/**
 * Times are wall-clock fields end to end: 02:30 on 2024-03-31 does not exist in Europe/Berlin
 * (clocks jump 02:00 -> 03:00), and node-zklib turns it into 03:30. Ours must keep 02:30.
 * `*.berlin.test.ts` files run with TZ=Europe/Berlin (vitest.config.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeZkTime, encodeAttendance40, encodeDataset, encodeZkTime } from '../../src/sources/zk/protocol/index.js';
import { setup } from './helpers.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('time zone independence (TZ=Europe/Berlin)', () => {
  it('the process really runs in Europe/Berlin (otherwise this file proves nothing)', () => {
    expect(new Date(2024, 2, 31, 2, 30, 0).getHours()).toBe(3);
  });

  it('codec: 02:30 on the spring-forward night stays 02:30', () => {
    expect(decodeZkTime(encodeZkTime('2024-03-31 02:30:00'))).toBe('2024-03-31 02:30:00');
    expect(decodeZkTime(encodeZkTime('2024-10-27 02:30:00'))).toBe('2024-10-27 02:30:00');
  });

  it('client: a record at 02:30 on 2024-03-31 is downloaded as 02:30, and the clock is read the same way', async () => {
    const rec = { uid: 1, userId: '1005', verifyType: 1, state: 0, logTime: '2024-03-31 02:30:00', workCode: 0 };
    const t = await setup({ transport: 'tcp', attendance: encodeDataset([encodeAttendance40(rec)]) });
    cleanup = t.cleanup;
    await t.zk.connect();
    expect(await t.zk.getAttendances()).toEqual([rec]);
    await t.zk.setTime('2024-03-31 02:30:00');
    expect(await t.zk.getTime()).toBe('2024-03-31 02:30:00');
  });
});
