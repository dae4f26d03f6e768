import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MSG } from '../../src/sim/hrms/index.js';
import { ATT_PATH, TOKEN, pushPunches, useHrmsSim } from './helpers.js';

const start = useHrmsSim();

describe('attendance push', () => {
  it('adds punches and answers one Payload element per punch, in order (capital keys by default)', async () => {
    const s = await start();
    const r = await pushPunches(s, [
      { biometriccode: '101', logDate: '2025-03-01 08:00:00', devicelogId: 'a1' },
      { biometriccode: '102', logDate: '2025-03-01 08:01:00' },
    ]);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      Status: true,
      Payload: [
        { status: true, message: 'Attendance added successfully' },
        { status: true, message: 'Attendance added successfully' },
      ],
    });
    expect(s.attendance().map((p) => [p.biometriccode, p.logDate, p.devicelogId, p.requestNo])).toEqual([
      ['101', '2025-03-01 08:00:00', 'a1', 1],
      ['102', '2025-03-01 08:01:00', undefined, 1],
    ]);
    expect(s.requests()).toBe(1);
  });

  it('with dedupBy devicelogId, a punch is "already there" by its devicelogId only, as an HRMS that trusts the ids', async () => {
    const s = await start({ dedupBy: 'devicelogId' });
    await pushPunches(s, [{ biometriccode: '101', logDate: '2025-03-01 08:00:00', devicelogId: 'plant-1' }]);
    const r = await pushPunches(s, [
      // A resend: dropped as a duplicate.
      { biometriccode: '101', logDate: '2025-03-01 08:00:00', devicelogId: 'plant-1' },
      // Another punch under a reused id (a fresh journal numbering from 1 again): lost as well.
      { biometriccode: '102', logDate: '2025-03-02 08:00:00', devicelogId: 'plant-1' },
      // The same code and time under another id: recorded again.
      { biometriccode: '101', logDate: '2025-03-01 08:00:00', devicelogId: 'plant-2' },
      // No id: nothing to recognise it by.
      { biometriccode: '101', logDate: '2025-03-01 08:00:00' },
    ]);
    expect(r.json.Payload).toEqual([
      { status: false, message: MSG.duplicateId },
      { status: false, message: MSG.duplicateId },
      { status: true, message: MSG.added },
      { status: true, message: MSG.added },
    ]);
    expect(s.attendance()).toHaveLength(3);
  });

  it('answers lower-case status/payload with keyStyle lower', async () => {
    const s = await start({ keyStyle: 'lower' });
    const r = await pushPunches(s, [{ biometriccode: '7', logDate: '2025-03-01 08:00:00' }]);
    expect(r.json).toEqual({ status: true, payload: [{ status: true, message: MSG.added }] });
  });

  it('reports duplicates, bad dates and missing codes per punch while the request succeeds', async () => {
    const s = await start();
    await pushPunches(s, [{ biometriccode: '101', logDate: '2025-03-01 08:00:00' }]);
    const r = await pushPunches(s, [
      { biometriccode: '101', logDate: '2025-03-01 08:00:00' },
      { biometriccode: '101', logDate: '2025-02-30 08:00:00' },
      { biometriccode: '101', logDate: '2025-03-01T08:00:00' },
      { biometriccode: '101' },
      { logDate: '2025-03-01 09:00:00' },
      { biometriccode: 101, logDate: '2025-03-01 09:00:00' },
      'not an object',
      { biometriccode: '103', logDate: '2025-03-01 09:00:00' },
      { biometriccode: '103', logDate: '2025-03-01 09:00:00' },
    ]);
    expect(r.status).toBe(200);
    expect(r.json.Status).toBe(true);
    expect(r.json.Payload).toEqual([
      { status: false, message: 'Attendance already exists for this biometric code and time' },
      { status: false, message: 'Invalid logDate: 2025-02-30 08:00:00' },
      { status: false, message: 'Invalid logDate: 2025-03-01T08:00:00' },
      { status: false, message: 'logDate is required' },
      { status: false, message: 'biometriccode is required' },
      { status: false, message: 'biometriccode must be a string' },
      { status: false, message: MSG.notObject },
      { status: true, message: MSG.added },
      { status: false, message: MSG.duplicate },
    ]);
    expect(r.json.Payload[0].message).toMatch(/already exist/i);
    expect(s.received().map((p) => p.outcome)).toEqual([
      'added',
      'duplicate',
      'invalid_date',
      'invalid_date',
      'invalid_date',
      'invalid',
      'invalid',
      'invalid',
      'added',
      'duplicate',
    ]);
    expect(s.attendance()).toHaveLength(2);
    expect(s.requests()).toBe(2);
  });

  it('refuses unknown codes when the roster is on, even with no employee', async () => {
    const s = await start({ roster: 'employees' });
    const r = await pushPunches(s, [{ biometriccode: '999', logDate: '2025-03-01 08:00:00' }]);
    expect(r.json.Payload).toEqual([{ status: false, message: 'Unknown biometric code 999' }]);
    expect(s.received()[0]?.outcome).toBe('unknown_code');
    expect(s.attendance()).toEqual([]);
  });

  it('accepts the urlencoded form as well', async () => {
    const s = await start();
    const body = new URLSearchParams({
      punches_data: JSON.stringify([{ biometriccode: '5', logDate: '2025-03-01 08:00:00' }]),
    });
    const res = await request(`${s.url}${ATT_PATH}`, {
      method: 'POST',
      body: body.toString(),
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(await res.body.json()).toEqual({ Status: true, Payload: [{ status: true, message: MSG.added }] });
  });

  it('answers 400 when punches_data is missing or not a JSON array, recording nothing', async () => {
    const s = await start();
    for (const bad of ['{"biometriccode":"1"}', 'not json', '']) {
      const r = await pushPunches(s, bad);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ status: false, message: 'punches_data must be a JSON array' });
    }
    const res = await request(`${s.url}${ATT_PATH}`, {
      method: 'POST',
      body: '[]',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    await res.body.dump();
    expect(s.received()).toEqual([]);
    expect(s.requests()).toBe(4);
  });

  it('answers the invalid-path error for an unknown API path and 405 for a wrong method', async () => {
    const s = await start();
    const r = await pushPunches(s, [], TOKEN, '/api.php/hrm/nothing/here');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ status: false, message: MSG.invalidPath });
    expect(r.json.message).toMatch(/valid group, plugin name and API function/);
    const g = await request(`${s.url}${ATT_PATH}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(g.statusCode).toBe(405);
    expect(g.headers.allow).toBe('POST');
    await g.body.dump();
  });

  it('serves under a base path', async () => {
    const s = await start({ basePath: '/hr/' });
    expect(s.url).toMatch(/\/hr$/);
    const r = await pushPunches(s, [{ biometriccode: '1', logDate: '2025-03-01 08:00:00' }]);
    expect(r.json.Status).toBe(true);
    const res = await request(`${s.url.replace(/\/hr$/, '')}${ATT_PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(404);
    await res.body.dump();
  });
});

describe('attendance tokens', () => {
  const one = [{ biometriccode: '1', logDate: '2025-03-01 08:00:00' }];

  it('refuses a missing or wrong token with the seed failure object and records nothing', async () => {
    const s = await start();
    for (const token of [null, 'wrong-token']) {
      const r = await pushPunches(s, one, token);
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ status: false, message: 'Bearer token is not correct' });
    }
    const basic = await request(`${s.url}${ATT_PATH}`, {
      method: 'POST',
      headers: { authorization: `Basic ${TOKEN}` },
    });
    expect(basic.statusCode).toBe(401);
    await basic.body.dump();
    expect(s.received()).toEqual([]);
    expect(s.requests()).toBe(3);
  });

  it('expires a token at its expiresAt on the injected clock, and honours authHttpStatus', async () => {
    let now = 1_000_000;
    const s = await start({ tokens: [{ token: TOKEN, expiresAt: 2_000_000 }], now: () => now, authHttpStatus: 403 });
    expect((await pushPunches(s, one)).json.Status).toBe(true);
    now = 2_000_000;
    const r = await pushPunches(s, one);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(MSG.badToken);
    s.addToken('fresh-token-456', 3_000_000);
    const ok = await pushPunches(s, [{ biometriccode: '2', logDate: '2025-03-01 08:00:00' }], 'fresh-token-456');
    expect(ok.json.Status).toBe(true);
  });

  it('accepts any bearer token when none is configured, until one is added', async () => {
    const sim = await start({ tokens: undefined });
    expect((await pushPunches(sim, one, 'whatever')).status).toBe(200);
    expect((await pushPunches(sim, one, null)).status).toBe(401);
    sim.addToken(TOKEN);
    expect((await pushPunches(sim, one, 'whatever')).status).toBe(401);
    expect((await pushPunches(sim, one, TOKEN)).status).toBe(200);
  });

  it('accepts no token with an empty token list', async () => {
    const s = await start({ tokens: [] });
    expect((await pushPunches(s, one, 'whatever')).status).toBe(401);
  });
});
