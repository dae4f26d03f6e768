import { afterEach, describe, expect, it } from 'vitest';
import { classifyRtlog, punchEventsOf } from '../../src/sources/adms/rtlog-events.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CRJP230860777';

/**
 * Access events from 200 on that are a person's verification. ZKTeco's Security PUSH document
 * (Chinese edition, 门禁PUSH通讯协议, appendix 2 "实时事件描述", transcribed in public
 * repositories) names 207 password open, 215 first-person open by password, 216 password during
 * the passage-mode time zone, 218 pass by ID card, 222 background verification success (also in
 * the event map of ZKTeco's push demo server) and 232 verification passed, beside the door and
 * device events of that range (200 door opened, 201 door closed, 206 device started). They were
 * all counted as door events: answered OK, never journalled, never sent to the HRMS. Rows in the
 * field order of captured SpeedFace uploads; codes, people and times our own.
 */
const row = (pin: string, time: string, event: number, verify: number, index: number) =>
  `time=${time}\tpin=${pin}\tcardno=0\teventaddr=1\tevent=${event}\tinoutstatus=0\tverifytype=${verify}\tindex=${index}\tsitecode=0\tlinkid=0\tmaskflag=0\ttemperature=0\tconvtemperature=0`;

describe('Security PUSH events from 200 on that are a person verifying', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('password, first-person password, ID card, background and plain verification passes are punches', async () => {
    r = await startReceiver({ terminals: [terminal('gate', SN)] });
    const body = [
      row('701', '2026-11-30 09:00:07', 207, 3, 1),
      row('702', '2026-11-30 09:00:15', 215, 3, 2),
      row('703', '2026-11-30 09:00:16', 216, 3, 3),
      row('704', '2026-11-30 09:00:18', 218, 4, 4),
      row('705', '2026-11-30 09:00:22', 222, 15, 5),
      row('706', '2026-11-30 09:00:32', 232, 15, 6),
      // Door and device events of the same range: counted, never punches.
      row('0', '2026-11-30 09:00:33', 200, 200, 7),
      row('0', '2026-11-30 09:00:40', 201, 200, 8),
      row('0', '2026-11-30 09:01:00', 206, 200, 9),
      // A superuser opening the doors: a person, the admin's call, kept raw.
      row('707', '2026-11-30 09:02:08', 208, 3, 10),
    ].join('\n');
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, body)).toEqual({ status: 200, body: 'OK' });
    const punches = r.journal.queries.list().map((p) => [p.biometricCode, p.logTime, p.verifyType]);
    expect(punches.sort()).toEqual([
      ['701', '2026-11-30 09:00:07', 3],
      ['702', '2026-11-30 09:00:15', 3],
      ['703', '2026-11-30 09:00:16', 3],
      ['704', '2026-11-30 09:00:18', 4],
      ['705', '2026-11-30 09:00:22', 15],
      ['706', '2026-11-30 09:00:32', 15],
    ]);
    expect(r.store.pushEvents().map((e) => [e.code, e.count])).toEqual(
      expect.arrayContaining([
        ['200', 1],
        ['201', 1],
        ['206', 1],
      ]),
    );
    expect(r.store.keptUploads().map((k) => [k.table, k.lines, k.body])).toEqual([['rtlog', 1, body.split('\n')[9]]]);
  });

  it('a terminal whose punchEvents leave a person verification out has it kept raw, not counted as a door event', () => {
    const mine = punchEventsOf({ punchEvents: [0, 3] });
    expect(classifyRtlog({ pin: '701', event: 232 }, mine)).toBe('unknown');
    expect(classifyRtlog({ pin: '701', event: 203 }, mine)).toBe('unknown');
    expect(classifyRtlog({ pin: '701', event: 201 }, mine)).toBe('not-punch');
    expect(classifyRtlog({ pin: '701', event: 3 }, mine)).toBe('punch');
  });
});
