import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.js';
import type { PushJournal } from '../../src/journal/types.js';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';
const batch = attlog(['1001\t2026-11-01 08:00:00\t0\t1', '1002\t2026-11-01 08:00:01\t0\t1']);

/** The store, with commits refused while `refusing` says so (as SQLite does when the disk is full or locked). */
function refusingWhile(refusing: () => boolean) {
  return (store: PushJournal): PushJournal => ({
    ...store,
    stamps: (...a) => store.stamps(...a),
    pushTerminals: () => store.pushTerminals(),
    recordContacts: (...a) => store.recordContacts(...a),
    recordRefusals: (...a) => store.recordRefusals(...a),
    zoneTold: (...a) => store.zoneTold(...a),
    zone: (...a) => store.zone(...a),
    askZoneCheck: (...a) => store.askZoneCheck(...a),
    takeCommands: (...a) => store.takeCommands(...a),
    settleCommands: (...a) => store.settleCommands(...a),
    commitUsers: (...a) => store.commitUsers(...a),
    commitRecords: (...a) => store.commitRecords(...a),
    pruneKeptByAge: (...a) => store.pruneKeptByAge(...a),
    registration: (...a) => store.registration(...a),
    saveRegistration: (...a) => store.saveRegistration(...a),
    saveRegistrations: (...a) => store.saveRegistrations(...a),
    commitPunches: (...a) => {
      if (refusing()) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return store.commitPunches(...a);
    },
  });
}

describe('ADMS receiver: OK only once the batch is durable', () => {
  let r: Receiver | undefined;
  let sim: PushTerminalSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    await r?.stop();
    r = sim = undefined;
  });

  it('answers an error, not OK, when the journal refuses the commit, and moves no stamp', async () => {
    let refusing = true;
    r = await startReceiver({ terminals: [terminal('lobby', SN)], wrap: refusingWhile(() => refusing) });
    const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=42`, batch);
    expect(a.status).toBe(503);
    expect(a.body).not.toMatch(/^OK/);
    expect(r.journal.queries.list()).toEqual([]);
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`)).body).toContain(
      'ATTLOGStamp=0\n',
    );
    refusing = false;
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=42`, batch)).toEqual({
      status: 200,
      body: 'OK:2',
    });
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`)).body).toContain(
      'ATTLOGStamp=42\n',
    );
  });

  it('a Security PUSH transaction upload refused by the journal: an error, not transaction=N; resent, each pass once', async () => {
    let refusing = true;
    r = await startReceiver({ terminals: [terminal('lobby', SN)], wrap: refusingWhile(() => refusing) });
    const rows = [
      'transaction cardno=0\tpin=2\tverified=15\tdoorid=1\teventtype=0\tinoutstate=0\ttime=2026-11-30 08:01:02',
      'transaction cardno=0\tpin=7\tverified=1\tdoorid=1\teventtype=0\tinoutstate=1\ttime=2026-11-30 17:30:00',
    ].join('\r\n');
    const path = `/iclock/cdata?SN=${SN}&table=tabledata&tablename=transaction&count=2`;
    const refused = await http(r.url, 'POST', path, rows);
    expect(refused.status).toBe(503);
    expect(refused.body).not.toMatch(/^transaction=/);
    expect(r.journal.queries.list()).toEqual([]);
    refusing = false;
    expect(await http(r.url, 'POST', path, rows)).toEqual({ status: 200, body: 'transaction=2' });
    expect(await http(r.url, 'POST', path, rows)).toEqual({ status: 200, body: 'transaction=2' });
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['2', '7']);
  });

  it('a simulated terminal keeps what was refused and resends it until it is stored', async () => {
    let refusing = true;
    r = await startReceiver({ terminals: [terminal('lobby', SN)], wrap: refusingWhile(() => refusing) });
    sim = startPushTerminalSim({
      server: r.url,
      serial: SN,
      punches: 250,
      delayMs: 30,
      errorDelayMs: 30,
      timeMode: 'sequence',
    });
    await waitFor(() => sim!.stats().failedRequests >= 5, 20_000, 'refused uploads');
    expect(sim.acked()).toEqual([]);
    refusing = false;
    await waitFor(() => sim!.pending() === 0, 10_000, 'all acknowledged');
    expect(r.journal.counts().pending).toBe(250);
    expect(sim.stats().resentAfterOk).toBe(0);
  });

  it('answers an error when another process holds the journal locked, and OK once it is free', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    // Its first contact (its address is trusted from then on); a first contact while the journal
    // is locked is asked to retry as well: the trust could not be written.
    const other = new Database(r.tmp.path('journal.db'), { timeout: 0 });
    other.exec('BEGIN IMMEDIATE');
    expect((await http(r.url, 'GET', `/iclock/ping?SN=${SN}`)).status).toBe(503);
    other.exec('ROLLBACK');
    expect((await http(r.url, 'GET', `/iclock/ping?SN=${SN}`)).status).toBe(200);
    other.exec('BEGIN IMMEDIATE');
    try {
      const a = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=7`, batch);
      expect(a.status).toBe(503);
      expect(r.log.lines().some((l) => String(l.msg).startsWith('cannot journal an upload now'))).toBe(true);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=7`, batch)).toEqual({
      status: 200,
      body: 'OK:2',
    });
    expect(r.journal.queries.list()).toHaveLength(2);
  });

  it('gives the saved stamps after a restart', async () => {
    const dir = tempDir('punchgate-adms-');
    try {
      r = await startReceiver({ terminals: [terminal('lobby', SN)], dir });
      await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1234`, batch);
      await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=OPERLOG&Stamp=56`, 'USER PIN=1\tName=A\n');
      await r.stop(true);
      r = await startReceiver({ terminals: [terminal('lobby', SN)], dir });
      const options = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
      expect(options.body).toContain('ATTLOGStamp=1234\n');
      expect(options.body).toContain('OPERLOGStamp=56\n');
      // A terminal swapped for another device (a new serial under the same name) starts from 0.
      await r.stop(true);
      r = await startReceiver({ terminals: [terminal('lobby', 'NEWDEVICE01')], dir });
      const fresh = await http(r.url, 'GET', '/iclock/cdata?SN=NEWDEVICE01&options=all&pushver=2.4.1');
      expect(fresh.body).toContain('ATTLOGStamp=0\n');
    } finally {
      await r?.stop(true);
      r = undefined;
      dir.cleanup();
    }
  });
});
