import { afterEach, describe, expect, it } from 'vitest';
import { HikAuthError, HikConnectionError, type HikvisionClient } from '../../src/sources/hikvision/index.js';
import { startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { openClient, PASSWORD, startSim } from './helpers.js';

let sim: HikvisionSim | undefined;
let client: HikvisionClient | undefined;
afterEach(async () => {
  await client?.http.close();
  await sim?.stop();
  client = sim = undefined;
});

describe('Hikvision client against the simulator', () => {
  it('authenticates with Digest: one challenge, then the nonce is reused without another 401', async () => {
    sim = await startSim(0, { serialNumber: 'DS-TEST-1' });
    client = await openClient(sim);
    expect((await client.deviceInfo()).serialNumber).toBe('DS-TEST-1');
    await client.getTime();
    await client.deviceInfo();
    expect(sim.requests().map((r) => `${r.status} ${r.auth}`)).toEqual(['401 none', '200 ok', '200 ok', '200 ok']);
    expect(sim.auth().failures).toBe(0);
  });

  it('answers a stale nonce again without counting it as a wrong password', async () => {
    let now = Date.now();
    sim = await startSim(0, { nonceTtlMs: 60_000, now: () => now });
    client = await openClient(sim);
    await client.deviceInfo();
    now += 120_000;
    await client.deviceInfo();
    expect(sim.requests().map((r) => r.auth)).toEqual(['none', 'ok', 'stale', 'ok']);
    expect(sim.auth().failures).toBe(0);
  });

  it('a wrong password is sent once and refused plainly, with the tries left', async () => {
    sim = await startSim(0);
    client = await openClient(sim, 'wrong-one');
    const e = await client.deviceInfo().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HikAuthError);
    expect((e as HikAuthError).message).toMatch(/refuses the password of "admin" \(4 tries left/);
    expect((e as HikAuthError).message).not.toContain('wrong-one');
    expect(sim.auth().failures).toBe(1);
  });

  it('says when the device has locked the account', async () => {
    sim = await startSim(0, { lockoutAfter: 1 });
    client = await openClient(sim, 'wrong-one');
    await client.deviceInfo().catch(() => undefined);
    await client.http.close();
    client = await openClient(sim, PASSWORD);
    const e = (await client.deviceInfo().catch((x: unknown) => x)) as HikAuthError;
    expect(e.locked).toBe(true);
    expect(e.message).toMatch(/has locked the account "admin" after repeated wrong passwords \(unlocks in 30 min\)/);
  });

  it('reads every page, advancing by numOfMatches: the device caps pages at 30 whatever is asked', async () => {
    sim = await startSim(100);
    client = await openClient(sim);
    const rows: number[] = [];
    const sizes: number[] = [];
    for await (const page of client.eventPages({ major: 5, minor: 0, maxResults: 100 })) {
      sizes.push(page.numOfMatches);
      rows.push(...page.rows.map((r) => r.serialNo as number));
    }
    const all = sim.events().filter((e) => e.major === 5);
    expect(rows).toEqual(all.map((e) => e.serialNo));
    expect(Math.max(...sizes)).toBe(30);
    const asked = sim
      .requests()
      .filter((r) => r.cond)
      .map((r) => [r.cond!.maxResults, r.cond!.searchResultPosition]);
    expect(asked.slice(0, 3)).toEqual([
      [100, 0],
      [100, 30],
      [100, 60],
    ]);
  });

  it('names an address where nothing listens', async () => {
    const s = await startHikvisionSim();
    const url = s.url;
    await s.stop();
    client = await openClient({ url });
    const e = await client.deviceInfo().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HikConnectionError);
    expect((e as Error).message).toMatch(/refused the connection/);
  });

  it('manages users and cards: set up, search (paged), card, delete', async () => {
    sim = await startSim(0);
    client = await openClient(sim);
    for (let i = 0; i < 45; i++) await client.users.setUp({ employeeNo: String(1000 + i), name: `Person ${i}` });
    await client.users.setUp({ employeeNo: '1000', name: 'Renamed' });
    await client.users.setUpCard({ employeeNo: '1001', cardNo: '0004521234' });
    const users = await client.users.list();
    expect(users).toHaveLength(45);
    expect(users[0]).toMatchObject({ employeeNo: '1000', name: 'Renamed', userType: 'normal', numOfCard: 0 });
    expect(users[1]).toMatchObject({ employeeNo: '1001', numOfCard: 1 });
    expect(await client.users.count()).toBe(45);
    expect(await client.users.cards(['1001'])).toEqual([
      { employeeNo: '1001', cardNo: '0004521234', cardType: 'normalCard' },
    ]);
    await client.users.deleteCards(['0004521234']);
    expect(await client.users.cards()).toEqual([]);
    await client.users.delete(['1000', '1002']);
    expect((await client.users.list()).map((u) => u.employeeNo)).not.toContain('1000');
    expect(await client.users.count()).toBe(43);
    const e = await client.users.setUpCard({ employeeNo: 'nobody', cardNo: '1' }).catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/CardInfo\/SetUp: HTTP 400 \(Invalid Content, employeeNoNotExist/);
  });
});
