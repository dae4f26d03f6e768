import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { readDevices } from '../../src/sources/biotime/devices.js';
import { readNotes } from '../../src/sources/biotime/notes.js';
import { idOverlap } from '../../src/sources/biotime/reader.js';
import { hostileTransactions, transaction, SIM_TERMINALS, type BiotimeSim } from '../../src/sim/biotime/index.js';
import {
  bioConfig,
  expectedKeys,
  journalFixture,
  journalKeys,
  listQueries,
  passwordEnv,
  startSim,
  ZONE,
} from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(count: number, variant: Parameters<typeof startSim>[1] = {}, extra = {}) {
  const sim = await startSim(count, variant);
  const j = journalFixture();
  cleanups.push(() => sim.stop(), j.cleanup);
  const poller = new BiotimePoller(bioConfig(sim, extra), j.deps, undefined, passwordEnv());
  cleanups.push(() => poller.destroy());
  return { sim, j, poller };
}

const topics = (j: ReturnType<typeof journalFixture>) => readNotes(j.journal.sourceState, 'hq').map((n) => n.topic);

/** A transaction now on the first simulated terminal. */
const fresh = (sim: BiotimeSim, emp: string, atMs = Date.now() - 60_000) =>
  sim.add([transaction({ emp, atMs, terminal: SIM_TERMINALS[0], state: 0, verify: 1 }, 2000, ZONE)]);

describe('BioTime poller against the simulator', () => {
  it('reads every transaction once by id (JWT), each terminal its own device; the next poll asks only for newer ids', async () => {
    const { sim, j, poller } = await setup(750);
    const r = await poller.poll();
    expect(r).toMatchObject({ ok: true, added: 750, mode: 'id' });
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
    // Each terminal behind the server is a device of its own; punch_state and verify_type kept.
    const devices = new Set(j.journal.queries.list().map((p) => p.device));
    expect([...devices].sort()).toEqual(SIM_TERMINALS.map((t) => t.sn).sort());
    const one = j.journal.queries.list({ limit: 1 })[0]!;
    const row = sim.table.all().find((t) => t.emp_code === one.biometricCode && t.punch_time === one.logTime)!;
    expect(one.punchState).toBe(Number(row.punch_state));
    expect(one.verifyType).toBe(row.verify_type);
    expect(readDevices(j.journal.sourceState, 'hq').map((d) => [d.serial, d.alias])).toEqual(
      SIM_TERMINALS.map((t) => [t.sn, t.alias]).sort(),
    );
    fresh(sim, '9001');
    const before = listQueries(sim).length;
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1, duplicates: 0 });
    const q = listQueries(sim).slice(before);
    // From a window of ids below the cursor (idOverlap: a page less one), what it reads again not doubled.
    expect(q[0]!.get('id__gt')).toBe(String(750 - idOverlap(100)));
    expect(q[0]!.get('ordering')).toBe('id');
    // Only the token POST and GETs: punchgate never writes to the server.
    expect(sim.requests().every((x) => x.method === 'GET' || /token-auth/.test(x.path))).toBe(true);
  });

  it('works with the Token endpoint only, the DRF envelope, and a version that cannot order by id (time window, no doubles)', async () => {
    const { sim, j, poller } = await setup(300, { variant: { auth: 'token', envelope: 'drf', idOrder: false } });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 300, mode: 'time' });
    fresh(sim, '9002');
    const r = await poller.poll();
    expect(r).toMatchObject({ ok: true, added: 1, mode: 'time' });
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
    expect(listQueries(sim).at(-1)!.get('start_time')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(sim.requests().some((x) => x.path === '/api-token-auth/' && x.status === 200)).toBe(true);
  });

  it('renews an expired token (and one a restarted server forgot) without losing a page', async () => {
    // A token expires after 3 reads, pages of 10: a renewal every 3 pages.
    const { sim, j, poller } = await setup(200, { variant: { tokenUses: 3 } }, { pageSize: 10 });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 200 });
    const logins = sim.requests().filter((x) => x.path === '/jwt-api-token-auth/').length;
    expect(logins).toBeGreaterThan(2);
    expect(sim.requests().filter((x) => x.status === 401).length).toBe(logins - 1);
    sim.setVariant({ tokenUses: 0 });
    sim.forgetTokens();
    fresh(sim, '9003');
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1 });
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
    expect(topics(j)).toEqual([]);
  });

  it('a renumbered table is read again from the newest punch read (no doubles, nothing lost), with an alert; a cleared one too', async () => {
    const { sim, j, poller } = await setup(400);
    await poller.poll();
    // The database restored from a backup with the newer half, numbered from 1 again, and a punch
    // made since: the server's newest id (201) is below the 400 read.
    const rows = sim.table.all().slice(200);
    sim.table.clear();
    sim.table.add(rows);
    fresh(sim, '9004');
    const first = await poller.poll(); // finds nothing above 400, sees the newest id 201 below it
    expect(first.ok).toBe(true);
    expect(topics(j)).toContain('table');
    await poller.poll(); // reads again from the window
    expect(journalKeys(j.journal).length).toBe(401);
    expect(journalKeys(j.journal).filter((k) => k.startsWith('9004@'))).toHaveLength(1);
    // From then on, by id again.
    fresh(sim, '9005');
    expect(await poller.poll()).toMatchObject({ added: 1 });
    expect(listQueries(sim).at(-1)!.get('start_time')).toBeNull();
    // Cleared: nothing left, numbering from 1 again; the next transaction is read.
    sim.table.clear();
    await poller.poll();
    fresh(sim, '9006');
    await poller.poll();
    expect(journalKeys(j.journal).some((k) => k.startsWith('9006@'))).toBe(true);
  });

  it('a licence that refuses the API and a changed password are alerts in plain words; nothing read is lost and the wrong password is not hammered', async () => {
    const { sim, j, poller } = await setup(50);
    await poller.poll();
    sim.setVariant({ licenceRefuses: true });
    fresh(sim, '9007');
    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(topics(j)).toContain('api');
    expect(readNotes(j.journal.sourceState, 'hq').find((n) => n.topic === 'api')!.cause).toMatch(
      /refuses its API \("You do not have permission to perform this action\."\): its licence/,
    );
    sim.setVariant({ licenceRefuses: false });
    // A token refused as soon as it is given (here: it expires before its first use) is the account's rights, not its password.
    sim.setVariant({ tokenUses: -1 });
    expect(await poller.poll()).toMatchObject({ ok: false, authRefused: false });
    expect(readNotes(j.journal.sourceState, 'hq').find((n) => n.topic === 'api')!.cause).toMatch(
      /refuses its API \("Signature has expired\."\).*the account may not use it/,
    );
    sim.setVariant({ tokenUses: 0 });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1 });
    expect(topics(j)).not.toContain('api');
    sim.setPassword('Changed-on-the-server');
    sim.setVariant({ quotePassword: true }); // and its refusal quotes the password it was sent
    sim.forgetTokens();
    fresh(sim, '9008');
    expect(await poller.poll()).toMatchObject({ ok: false, authRefused: true });
    expect(readNotes(j.journal.sourceState, 'hq').find((n) => n.topic === 'password')!.fix).toMatch(
      /put the account's current password/,
    );
    expect(JSON.stringify(readNotes(j.journal.sourceState, 'hq'))).not.toContain('Right-passw0rd');
    expect(JSON.stringify(j.journal.terminals.get('hq'))).not.toContain('Right-passw0rd');
    const logins = () => sim.requests().filter((x) => /token-auth/.test(x.path)).length;
    const n = logins();
    await poller.poll();
    expect(logins()).toBe(n); // not asked again until the password changes
    sim.setPassword('Right-passw0rd');
    expect(j.journal.counts().pending).toBe(51);
  });

  it('endless, huge and next-for-ever answers end within the bounds; what was read stays; hostile rows neither crash nor blind the cursor', async () => {
    const { sim, j, poller } = await setup(30, {}, { timeoutMs: 300 });
    sim.setVariant({ fault: 'endless' });
    const endless = await poller.poll();
    expect(endless.ok).toBe(false);
    expect(endless.error).toMatch(/did not finish|stopped sending|more than/);
    sim.setVariant({ fault: 'huge', hugeBytes: 6 * 1024 * 1024 });
    expect((await poller.poll()).error).toMatch(/more than 4096 kB/);
    sim.setVariant({ fault: null });
    expect(await poller.poll()).toMatchObject({ ok: true, added: 30 });
    sim.add(hostileTransactions(Date.now() - 20_000, ZONE));
    const h = await poller.poll();
    expect(h.ok).toBe(true);
    expect(h.refused).toBe(2); // the control-character code and the 5,000-character one
    expect(h.quarantined).toBe(1); // "yesterday, about noon"
    fresh(sim, '9010');
    expect(await poller.poll()).toMatchObject({ ok: true, added: 1 }); // the cursor went past them
    const aliases = readDevices(j.journal.sourceState, 'hq').map((d) => d.alias + d.area + d.serial);
    expect([...aliases.join('')].some((c) => c < ' ' || c === '\u202e')).toBe(false);
    sim.setVariant({ fault: 'next-forever' });
    fresh(sim, '9011');
    const small = new BiotimePoller(bioConfig(sim), j.deps, undefined, passwordEnv(), { maxPages: 5 });
    cleanups.push(() => small.destroy());
    expect(await small.poll()).toMatchObject({ ok: true, added: 1 }); // by id: a short page ends the read whatever `next` says
  });

  it('terminals and areas narrow what is read; the cursor passes the others', async () => {
    const { sim, j, poller } = await setup(300, {}, { terminals: [SIM_TERMINALS[1].sn] });
    await poller.poll();
    const want = sim.table.all().filter((t) => t.terminal_sn === SIM_TERMINALS[1].sn);
    expect(journalKeys(j.journal)).toEqual(expectedKeys(want));
    const areas = new BiotimePoller(bioConfig(sim, { name: 'hq2', areas: ['Head office'] }), j.deps, undefined, {
      PUNCHGATE_TERMINAL_HQ2_PASSWORD: 'Right-passw0rd',
    });
    cleanups.push(() => areas.destroy());
    const r = await areas.poll();
    expect(r.added).toBe(sim.table.all().filter((t) => t.area_alias === 'Head office').length);
  });

  it('a server far behind its terminals (punches reaching it an hour late) is an alert naming the terminal', async () => {
    const { sim, j, poller } = await setup(0);
    sim.add([
      transaction(
        { emp: '9012', atMs: Date.now() - 3 * 3_600_000, terminal: SIM_TERMINALS[2], state: 0, verify: 1 },
        3 * 3_600_000 - 60_000,
        ZONE,
      ),
    ]);
    await poller.poll();
    const lag = readNotes(j.journal.sourceState, 'hq').find((n) => n.topic === 'lag');
    expect(lag?.cause).toMatch(/Canteen \(BOCK201960155\)'s punches reach it 3 h after/);
  });
});
