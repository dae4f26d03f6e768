import { afterEach, describe, expect, it } from 'vitest';
import { packedTime } from '../../src/sources/adms/server-time.js';
import { fakeClock } from '../helpers/tmp.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** ZKTeco's packed time read back (the firmware's decoding): for checking what was told. */
function unpack(t: number): string {
  const sec = t % 86_400;
  let days = Math.floor(t / 86_400);
  const year = 2000 + Math.floor(days / 372);
  days %= 372;
  const month = Math.floor(days / 31) + 1;
  const day = (days % 31) + 1;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${year}-${p(month)}-${p(day)} ${p(Math.floor(sec / 3600))}:${p(Math.floor(sec / 60) % 60)}:${p(sec % 60)}`;
}

describe('GET /iclock/rtdata?type=time (the server time newer push firmware asks)', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('packs UTC as ZKTeco does (a published answer, DateTime=583050990, is 2018-02-22 06:36:30)', () => {
    expect(unpack(583_050_990)).toBe('2018-02-22 06:36:30');
    expect(packedTime(Date.UTC(2018, 1, 22, 6, 36, 30))).toBe(583_050_990);
  });

  it("answers the time in UTC and each terminal's own zone, never the gateway's", async () => {
    const at = Date.UTC(2026, 10, 30, 22, 31, 29);
    const clock = fakeClock(at);
    r = await startReceiver({
      clock,
      terminals: [
        terminal('pune', 'CQZ7233461467', { timezone: 'Asia/Kolkata' }),
        terminal('nyc', 'CRJP230860129', { timezone: 'America/New_York' }),
        terminal('kathmandu', 'BRM9203460058', { timezone: 'Asia/Kathmandu' }),
      ],
    });
    const ask = (sn: string) => http(r!.url, 'GET', `/iclock/rtdata?SN=${sn}&type=time`);
    const want = (tz: string) => ({ status: 200, body: `DateTime=${packedTime(at)},ServerTZ=${tz}` });
    expect(await ask('CQZ7233461467')).toEqual(want('+0530'));
    expect(await ask('CRJP230860129')).toEqual(want('-0500'));
    expect(await ask('BRM9203460058')).toEqual(want('+0545'));
    expect(unpack(packedTime(at))).toBe('2026-11-30 22:31:29');
    // Another rtdata type is refused plainly, not answered with a time or an OK.
    expect((await http(r.url, 'GET', '/iclock/rtdata?SN=CQZ7233461467&type=door')).status).toBe(400);
  });
});
