/**
 * ATTLOG lines of terminals with an ID card reader. ZKTeco's attendance PUSH document (Chinese
 * edition V4.0, January 2021, protocol 2.4.2, §11.7 "上传身份证考勤记录", published in public
 * repositories as a markdown transcription) adds two fields after Reserved2 for such terminals:
 * the card's ID number and the record's type, 0 attendance and 1 a check of the person against
 * their ID card, whose Status is the check's outcome (0 passed, 1 failed, 2 blacklisted). Read as
 * punches, a failed check reached the HRMS as a check-out and a blacklisted one as a break-out.
 * The lines below are our own, in the document's layout; the other layouts beside them are those
 * of the same fields' MaskFlag and Temperature (the document's §11.2) and of an eSSL capture
 * (zeroes there, `shreyasubale/epush-docker`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAttlog } from '../../src/sources/adms/attlog.js';
import { Journal } from '../../src/journal/journal.js';
import { PushStore } from '../../src/journal/push-store.js';
import { systemClock } from '../../src/util/clock.js';
import { spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { http, startReceiver, terminal } from './harness.js';
import { startPushStack } from './daemon-stack.js';

const SN = 'IDC2401000777';
// Made-up numbers in the 18-character form (the last may be X); none is anyone's.
const body = [
  // Attendance (type 0) with the card's number: a punch.
  '7001\t2026-11-30 08:00:01\t0\t1\t0\t0\t0\t110101199001010011\t0',
  // Checks against the ID card (type 1): passed, failed, blacklisted. No punch.
  '7002\t2026-11-30 08:00:02\t0\t1\t0\t0\t0\t110101199202020022\t1',
  '7003\t2026-11-30 08:00:03\t1\t1\t0\t0\t0\t11010119930303003X\t1',
  '7004\t2026-11-30 08:00:04\t2\t2\t0\t0\t0\t110101940404004\t1',
  // MaskFlag 1 and a temperature, and the eSSL zeroes: punches, as before.
  '7005\t2026-11-30 08:00:05\t1\t15\t0\t0\t0\t1\t36.5\t97.7\t+28800',
  '7006\t2026-11-30 08:00:06\t0\t1\t0\t\t\t0\t0\t',
  // A mask flag 1 and a Temperature of 1 (no ID number before it): still a punch.
  '7007\t2026-11-30 08:00:07\t0\t1\t0\t0\t0\t1\t1',
].join('\n');

describe('ATTLOG of terminals with an ID card reader', () => {
  it("their ID card records (table=IDCARD, with the card's photo and fingerprints) are counted, never kept", async () => {
    const r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    try {
      // The document's §11.6 layout; our values (base64-looking stand-ins).
      const card =
        'IDCARD PIN=2\tSNNum=7777\tIDNum=110101199001010011\tDNNum=\tName=Test Person\tGender=1\tNation=1\tBirthday=19900101\tValidInfo=2017091520270915\tAddress=Street 1\tAdditionalInfo=\tIssuer=Office\tPhoto=V0xmAH4AMgAAQUJD\tFPTemplate1=QwGIEgELUQQAQUJD\tFPTemplate2=QwGIEgEQUAAAQUJD\tReserve=\tNotice=';
      const path = `/iclock/cdata?SN=${SN}&table=IDCARD&Stamp=9999`;
      expect(await http(r.url, 'POST', path, card)).toEqual({ status: 200, body: 'OK' });
      expect(r.store.keptUploads()).toEqual([]);
      expect(r.store.pushEvents().map((e) => [e.table, e.code, e.count])).toEqual([['IDCARD', 'template', 1]]);
      r.journal.db.pragma('wal_checkpoint(TRUNCATE)');
      const bytes = readFileSync(r.journal.path).toString('latin1');
      for (const value of ['V0xmAH4AMgAA', 'QwGIEgELUQQA', 'QwGIEgEQUAAA']) expect(bytes).not.toContain(value);
    } finally {
      await r.stop();
    }
  });

  it('a check against the ID card (type 1) is counted apart, never a punch; attendance with a card number is one', () => {
    const parsed = parseAttlog(body);
    expect(parsed.malformed).toEqual([]);
    expect(parsed.records.map((r) => [r.pin, r.status])).toEqual([
      ['7001', 0],
      ['7005', 1],
      ['7006', 0],
      ['7007', 0],
    ]);
    expect(parsed.idCardChecks).toEqual([2, 3, 4]);
  });

  it('through punchgate run: the punches reach the HRMS once, the checks are counted, the upload answered OK:7', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: SN }] });
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => d.output().includes('push terminal receiver listening'), 20_000, 'receiver up');
      const path = `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=9999`;
      expect(await http(stack.url, 'POST', path, body)).toEqual({ status: 200, body: 'OK:7' });
      await waitFor(() => stack.hrms.attendance().length === 4, 20_000, 'delivered');
      // The same upload again (a terminal moved to a new server sends its history): nothing new.
      expect(await http(stack.url, 'POST', path, body)).toEqual({ status: 200, body: 'OK:7' });
      expect(d.output().match(/terminal lobby pushed 4 punches/g)).toHaveLength(2);
      expect(
        stack.hrms
          .attendance()
          .map((p) => p.biometriccode)
          .sort(),
      ).toEqual(['7001', '7005', '7006', '7007']);
      expect(d.output()).not.toMatch(/malformed ATTLOG line/);
    } finally {
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    }
    const journal = Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-p', mode: 'readonly' });
    try {
      const events = new PushStore(journal.db, journal, systemClock).pushEvents();
      expect(events.map((e) => [e.terminal, e.table, e.code, e.count])).toEqual([
        ['lobby', 'ATTLOG', 'id-card-check', 6],
      ]);
      expect(journal.queries.list()).toHaveLength(4);
    } finally {
      journal.close();
      await stack.stop();
    }
  }, 120_000);
});
