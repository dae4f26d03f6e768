import { afterEach, describe, expect, it } from 'vitest';
import { startDahuaSim } from '../../src/sim/dahua/index.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { dahuaConfig, journalFixture, OFFSET_MIN, PASSWORD } from './helpers.js';

/**
 * Dahua's AttendanceState as the device numbers it: 1 sign in, 2 go out, 3 back from going out,
 * 4 sign out, 5 overtime sign in, 6 overtime sign out (0 none). That is the order of Dahua's
 * NetSDK enum NET_ATTENDANCESTATE / EM_ATTENDANCESTATE, the type of the emAttendanceState of the
 * access record set (NET_RECORDSET_ACCESS_CTL_CARDREC) that recordFinder.cgi's AccessControlCardRec
 * lists; see e.g. the Java binding com.company.NetSDK.NET_ATTENDANCESTATE and the C# demos of
 * Dahua's General NetSDK. Read as "state - 1", a sign-out (4) was kept as break-in and a go-out (2)
 * as check-out: the HRMS got the wrong direction for every check-out of such a terminal.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Dahua AttendanceState, as the device numbers it', () => {
  it('each state through the record search is kept as the state it means (ZK numbering), Type only when none was pressed', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    // The state pressed for each record, and the punch state punchgate keeps (ZK: 0 in, 1 out,
    // 2 break-out, 3 break-in, 4 overtime-in, 5 overtime-out).
    const cases: [number, 'Entry' | 'Exit', number | null][] = [
      [1, 'Exit', 0], // sign in (at an exit reader: the key pressed wins)
      [2, 'Exit', 2], // go out: a break-out, not a check-out
      [3, 'Entry', 3], // back from going out: a break-in
      [4, 'Entry', 1], // sign out: a check-out, not a break-in
      [5, 'Entry', 4],
      [6, 'Exit', 5],
      [0, 'Entry', 0], // none pressed: the reader's Type
      [0, 'Exit', 1],
    ];
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: cases.map(([state, type], i) => ({
        CreateTime: now - 600 + i * 10,
        UserID: `${100 + i}`,
        Type: type,
        AttendanceState: state,
      })),
    });
    cleanups.push(() => sim.stop());
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile }), f.deps);
    cleanups.push(() => poller.destroy());
    expect(await poller.poll()).toMatchObject({ ok: true, added: cases.length });
    const kept = new Map(f.journal.queries.list().map((p) => [p.biometricCode, p.punchState]));
    expect(cases.map((_, i) => kept.get(`${100 + i}`))).toEqual(cases.map(([, , want]) => want));
  });
});
