import { afterEach, describe, expect, it } from 'vitest';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160007';

const punches = (r: Receiver) => r.journal.queries.list().map((p) => [p.biometricCode, p.logTime, p.punchState]);

describe('ADMS receiver: push firmware variants', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  /**
   * ATTLOG times in ISO 8601's `T` form and without seconds. Public push servers written against
   * deployed terminals (a Node iclock parser "SenseFace 3A compatible" matching
   * `^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$`; Python ADMS views trying `%Y-%m-%d %H:%M`) read both;
   * rebuilt here, not copied. They were quarantined as "bad date": the punch never reached the HRMS.
   */
  it('reads ATTLOG times written YYYY-MM-DDTHH:MM:SS or without seconds; a zoned time stays unread', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const zoned = '1004\t2024-05-06T08:04:00+08:00\t0\t1';
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`,
      attlog([
        '1001\t2024-05-06T08:01:02\t0\t1\t0\t\t\t0\t0\t',
        '1002\t2024-05-06 08:02\t1\t1',
        '1003\t2024-05-06T08:03\t0\t15',
        zoned,
      ]),
    );
    expect(up).toEqual({ status: 200, body: 'OK:3' });
    expect(punches(r)).toEqual([
      ['1001', '2024-05-06 08:01:02', 0],
      ['1002', '2024-05-06 08:02:00', 1],
      ['1003', '2024-05-06 08:03:00', 0],
    ]);
    // The zoned line is no wall clock: kept raw and said, never counted in OK:<n>.
    expect(r.store.keptUploads('lobby').map((k) => k.body)).toEqual([zoned]);
  });

  /**
   * A serial number with blanks around it (`SN=CQZ7232160007%20`, `SN=+CQZ...`) and in another
   * case (`sn=cqz...`): the public push servers written against deployed terminals read the
   * serial as `request.GET.get('SN', '').strip()` (several Django ADMS views) and compare it
   * without regard to case, so such firmware works there. It was answered 400 here, and its
   * punches waited on the terminal for ever.
   */
  it('reads a serial number with blanks around it or in another case as the terminal it names', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const forms = [`SN=${SN}%20`, `SN=+${SN}`, `sn=${SN.toLowerCase()}`, `SN=${SN}%09`, `SN=%20${SN}%0D%0A`];
    for (const [i, form] of forms.entries()) {
      const up = await http(
        r.url,
        'POST',
        `/iclock/cdata?${form}&table=ATTLOG&Stamp=${100 + i}`,
        attlog([`${2000 + i}\t2024-05-06 09:00:0${i}\t0\t1`]),
      );
      expect([form, up]).toEqual([form, { status: 200, body: 'OK:1' }]);
    }
    expect(r.journal.queries.list().map((p) => [p.terminal, p.device])).toEqual(forms.map(() => ['lobby', SN]));
    const hs = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}%20&options=all&pushver=2.4.1`);
    expect(hs.body).toContain(`GET OPTION FROM: ${SN}\n`);
    // Blanks inside the serial are no serial number: refused, as before.
    const inside = await http(r.url, 'GET', `/iclock/getrequest?SN=CQZ%20723`);
    expect(inside.status).toBe(400);
  });
});
