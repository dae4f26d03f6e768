import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkHikvisionTerminal } from '../../src/check/hikvision-check.js';
import { startHikvisionSim } from '../../src/sim/hikvision/index.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { HikvisionListenEndpoint } from '../../src/sources/hikvision/listen-endpoint.js';
import { hikConfig, journalFixture, journalKeys, PASSWORD, passwordEnv } from './helpers.js';

/**
 * A terminal whose firmware has no event search: `POST /ISAPI/AccessControl/AcsEvent` answers
 * 404 Invalid Operation / notSupport, and it only posts its events (HTTP Listening). Such
 * terminals are why HTTP Listening is read at all: a connector's notes on DS-K1T terminals
 * (ERPNEXT-PAKISTAN/Hikvision-Frappe README: the event search answers "Invalid Operation" /
 * "notSupport", only the pushed events come), the DS-K1T502 of pergolafabio/Hikvision-Addons#177.
 *
 * The poll reads its serial number, then fails at the search: the serial was written to the
 * terminal's record only at the end of a whole poll, so it never was, and the endpoint, which
 * files posts under it, answered every post 503 ("not ready; retry") for ever: not one of the
 * terminal's punches was kept. And the status blamed the address ("not as a Hikvision
 * access-control terminal does: check that url points at the terminal, not a camera"); then it
 * called the terminal failing at every poll, and `check` blamed the address still.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function post(port: number, body: string) {
  return new Promise<number>((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const pass = (employeeNo: string, serialNo: number, dateTime: string) =>
  JSON.stringify({
    ipAddress: '127.0.0.1',
    dateTime,
    eventType: 'AccessControllerEvent',
    eventState: 'active',
    AccessControllerEvent: { majorEventType: 5, subEventType: 75, employeeNoString: employeeNo, serialNo },
  });

describe('a Hikvision terminal that only posts its events (no event search)', () => {
  it('its posts are journalled once a poll read its serial, and the status says what the terminal lacks', async () => {
    const sim = await startHikvisionSim({ password: PASSWORD, utcOffset: '+05:30', firmware: { eventSearch: false } });
    cleanups.push(() => sim.stop());
    const f = journalFixture();
    cleanups.push(f.cleanup);
    const cfg = hikConfig(sim, { listen: true });
    const poller = new HikvisionPoller(cfg, f.deps, undefined, passwordEnv());
    cleanups.push(() => poller.close());
    const endpoint = new HikvisionListenEndpoint(cfg, f.deps, {
      // As the source wires it (source.ts): the serial the terminal's record holds.
      serial: () => f.deps.ledger.get(cfg.name)?.serial ?? '',
      backfill: () => undefined,
    });
    const server: Server = createServer((req, res) => void endpoint.handle({ req, res, address: '127.0.0.1' }));
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    cleanups.push(() => new Promise<void>((res) => server.close(() => res())));
    const port = (server.address() as AddressInfo).port;

    // Before any poll: not ready, the terminal posts again.
    expect(await post(port, pass('100054', 7, '2026-11-02T07:58:01+05:30'))).toBe(503);
    // The poll reads what such a terminal offers (identity, clock, users) and is a good poll: it
    // failed each interval, so the status called a working terminal broken. `check` warns once
    // of what listening alone means.
    const r = await poller.poll();
    expect(r).toMatchObject({ ok: true, listeningOnly: true, reached: true });
    expect(f.deps.ledger.get(cfg.name)?.serial).toBe(r.serial);
    expect(r.serial).not.toBe('');
    const rec = f.deps.ledger.get(cfg.name)!;
    expect(rec).toMatchObject({ online: true, lastError: null, offlineSince: null });
    expect(rec.lastSuccessAt).not.toBeNull();
    expect((await poller.poll()).ok).toBe(true);
    const checked = await checkHikvisionTerminal(cfg, 0, { clock: { now: Date.now }, env: passwordEnv() });
    expect(checked.status).toBe('warn');
    expect(checked.detail).toMatch(
      /does not search its event log .*notSupport.*: its punches come by HTTP Listening alone/,
    );
    expect(checked.fix).toMatch(/punchgate terminals listen reception/);
    expect(checked.detail).not.toMatch(/not as a Hikvision access-control terminal/);

    // The post again, and the next ones: journalled, once each.
    expect(await post(port, pass('100054', 7, '2026-11-02T07:58:01+05:30'))).toBe(200);
    expect(await post(port, pass('100055', 8, '2026-11-02T07:59:12+05:30'))).toBe(200);
    expect(await post(port, pass('100055', 8, '2026-11-02T07:59:12+05:30'))).toBe(200);
    expect(journalKeys(f.journal)).toEqual(['100054@2026-11-02 07:58:01', '100055@2026-11-02 07:59:12']);
    expect(new Set(f.journal.queries.list().map((p) => p.device))).toEqual(new Set([r.serial]));

    // Without listen: true, the same terminal's fault says to set it.
    const plain = new HikvisionPoller(hikConfig(sim, { name: 'gate' }), f.deps, undefined, {
      PUNCHGATE_TERMINAL_GATE_PASSWORD: PASSWORD,
    });
    cleanups.push(() => plain.close());
    expect((await plain.poll()).ok).toBe(false);
    expect(f.deps.ledger.get('gate')?.lastError).toMatch(/does not search its event log .*notSupport/);
    expect(f.deps.ledger.get('gate')?.lastErrorFix).toMatch(/listen: true .*punchgate terminals listen gate/);
    const plainCheck = await checkHikvisionTerminal(hikConfig(sim, { name: 'gate' }), 0, {
      clock: { now: Date.now },
      env: { PUNCHGATE_TERMINAL_GATE_PASSWORD: PASSWORD },
    });
    expect(plainCheck.status).toBe('fail');
    expect(plainCheck.fix).toMatch(/set terminals\[0\]\.listen: true .*punchgate terminals listen gate/);
    expect(plainCheck.detail).not.toMatch(/not as a Hikvision access-control terminal/);
  });
});
