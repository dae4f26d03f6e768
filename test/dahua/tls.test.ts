import { X509Certificate } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { generateRecords, startDahuaSim } from '../../src/sim/dahua/index.js';
import { activeDahuaNotes, DahuaPoller } from '../../src/sources/dahua/index.js';
import { selfSignedCert } from '../helpers/tls.js';
import { dahuaConfig, journalFixture, journalKeys, OFFSET_MIN, PASSWORD, expectedPunches } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Dahua over https, and what the status is told', () => {
  it('reads over TLS with the pinned certificate, and refuses another in words without sending the password', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const made = selfSignedCert(f.tmp.dir, 'dahua');
    const other = selfSignedCert(f.tmp.dir, 'other');
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      tls: { cert: made.cert, key: made.key },
      records: generateRecords(30, now - 600, 3),
    });
    cleanups.push(() => sim.stop());
    const pinned = new DahuaPoller(
      dahuaConfig(sim, {
        passwordFile: f.passwordFile,
        tls: true,
        tlsFingerprint: new X509Certificate(made.cert).fingerprint256,
      }),
      f.deps,
    );
    cleanups.push(() => pinned.destroy());
    expect(await pinned.poll()).toMatchObject({ ok: true });
    expect(await pinned.poll()).toMatchObject({ ok: true }); // the kept-alive connection, checked again
    expect(journalKeys(f.journal)).toEqual(expectedPunches(sim.records()));

    const before = sim.counts().requests;
    const wrong = new DahuaPoller(
      dahuaConfig(sim, {
        passwordFile: f.passwordFile,
        tls: true,
        tlsFingerprint: new X509Certificate(other.cert).fingerprint256,
      }),
      f.deps,
    );
    cleanups.push(() => wrong.destroy());
    const r = await wrong.poll();
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/not the pinned one: connection refused/);
    expect(sim.counts().requests).toBe(before);
  });

  it('a cleared log and records dated implausibly are notes for the status, each with a fix', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(30, now - 600, 3),
    });
    cleanups.push(() => sim.stop());
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: f.passwordFile }), f.deps);
    cleanups.push(() => poller.destroy());
    await poller.poll();
    sim.clear();
    sim.addRecords([{ UserID: 'Z1' }, { UserID: 'Z2', CreateTime: 2145000000 }]);
    await poller.poll();
    const notes = activeDahuaNotes(f.journal.sourceState, 'front-door', Date.now());
    expect(notes.map((n) => n.topic).sort()).toEqual(['cursor', 'records']);
    expect(notes.find((n) => n.topic === 'cursor')!.cause).toMatch(
      /holds 2 records where it held 30: cleared or reset/,
    );
    for (const n of notes) expect(n.fix.length).toBeGreaterThan(10);
  });
});
