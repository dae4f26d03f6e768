import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { credentialWords, DeliveryHealth } from '../../src/delivery/health.js';
import type { DeliveryRecord } from '../../src/journal/types.js';
import { createLogger } from '../../src/util/logger.js';
import { fakeClock } from '../helpers/tmp.js';
import { compilePatterns } from '../../src/delivery/outcomes.js';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import { startFrappeSim, STRICT_LOG_TYPE, type FrappeSim } from '../../src/sim/frappe/index.js';
import { FrappeSender } from '../../src/sinks/frappe/sender.js';
import type { FrappeSinkOptions } from '../../src/sinks/frappe/options.js';
import type { SinkPunch } from '../../src/sinks/types.js';

/**
 * The Frappe sender against the Frappe simulator on loopback: each of Frappe's answers decides
 * its punch as Frappe meant it, failures of the whole site fail the batch, at most `concurrency`
 * calls are in flight, and neither the key nor the secret ever comes back in a message.
 */
const KEY = 'a1b2c3d4e5f6g7h';
const SECRET = 'zz9Secret8yy7xx';
const TOKEN = `${KEY}:${SECRET}`;
/** delivery.patterns.duplicate's defaults: a duplicate's message must match one. */
const DUPLICATE = compilePatterns(['already exist', 'duplicate', 'already (been )?(added|recorded|marked)']);

let sim: FrappeSim;
const senders: FrappeSender[] = [];

beforeAll(async () => {
  sim = await startFrappeSim({ keys: [{ key: KEY, secret: SECRET }] });
});
afterAll(async () => {
  await sim.stop();
});
afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  sim.reset();
  seed();
});

function seed(): void {
  sim.addShiftType({ name: 'Night', determine_check_in_and_check_out: STRICT_LOG_TYPE });
  for (let i = 1; i <= 50; i++)
    sim.addEmployee({ employee_name: `Person ${i}`, fields: { attendance_device_id: String(100 + i) } });
  sim.addEmployee({ employee_name: 'Gone', status: 'Inactive', fields: { attendance_device_id: '900' } });
  sim.addEmployee({ employee_name: 'Night worker', default_shift: 'Night', fields: { attendance_device_id: '901' } });
}

function sender(o: Partial<FrappeSinkOptions> = {}, url = sim.url): FrappeSender {
  const s = new FrappeSender(
    {
      baseUrl: url,
      method: 'hrms',
      employeeFieldname: 'attendance_device_id',
      concurrency: 4,
      timeoutMs: 20_000,
      ...o,
    },
    { name: 'frappe-hr', connectTimeoutMs: 5000, env: {} },
  );
  senders.push(s);
  return s;
}

let seq = 0;
function punch(
  code: string,
  time = `2026-11-02 08:${String(seq % 60).padStart(2, '0')}:00`,
  extra: Partial<SinkPunch> = {},
): SinkPunch {
  seq++;
  return {
    devicelogId: `p-${seq}`,
    biometricCode: code,
    logTime: time,
    terminal: 'gate-1',
    device: 'SN1',
    timezone: 'UTC',
    ...extra,
  };
}

function results(a: AttendanceAnswer) {
  if (a.kind !== 'answered') throw new Error(`expected answered, got ${a.kind}: ${'message' in a ? a.message : ''}`);
  return a.results;
}

describe('FrappeSender', () => {
  beforeAll(() => seed());

  it("with the site's timezone, each punch's time is the site's wall clock at that instant; without, as recorded", async () => {
    const batch = () => [
      punch('101', '2026-07-01 08:00:00', { timezone: 'Europe/Berlin' }), // 06:00 UTC
      punch('102', '2026-12-01 08:00:00', { timezone: 'Europe/Berlin' }), // 07:00 UTC (winter)
      punch('103', '2026-07-01 09:15:00', { timezone: 'Asia/Kolkata' }), // the site's own zone
      punch('104', '2026-03-29 02:30:00', { timezone: 'Asia/Kolkata' }), // untouched in its own zone
    ];
    results(await sender({ timezone: 'Asia/Kolkata' }).send(batch(), { token: TOKEN }));
    expect(
      sim
        .checkins()
        .map((x) => x.time)
        .sort(),
    ).toEqual(['2026-03-29 02:30:00', '2026-07-01 09:15:00', '2026-07-01 11:30:00', '2026-12-01 12:30:00']);
    sim.reset();
    seed();
    results(await sender().send(batch(), { token: TOKEN }));
    expect(
      sim
        .checkins()
        .map((x) => x.time)
        .sort(),
    ).toEqual(['2026-03-29 02:30:00', '2026-07-01 08:00:00', '2026-07-01 09:15:00', '2026-12-01 08:00:00']);
  });

  it('delivers one Employee Checkin per punch with time, device, log type and the employee field', async () => {
    const a = await sender().send(
      [
        punch('101', '2026-11-02 08:00:00', { direction: 'in' }),
        punch('102', '2026-11-02 17:30:05', { direction: 'out' }),
        punch('103', '2026-11-02 09:00:00'),
      ],
      { token: TOKEN },
    );
    const r = results(a);
    expect(r.map((x) => x.status)).toEqual([true, true, true]);
    expect(r[0]!.message).toMatch(/^Employee Checkin EMP-CKIN-/);
    const c = sim.checkins();
    expect(c.map((x) => [x.time, x.log_type, x.device_id]).sort()).toEqual([
      ['2026-11-02 08:00:00', 'IN', 'gate-1'],
      ['2026-11-02 09:00:00', null, 'gate-1'],
      ['2026-11-02 17:30:05', 'OUT', 'gate-1'],
    ]);
    expect(c).toHaveLength(3);
  });

  it('a punch Frappe already has is a duplicate whose message the default duplicate patterns match', async () => {
    const s = sender();
    const p = punch('104', '2026-11-02 07:59:00', { direction: 'in' });
    expect(results(await s.send([p], { token: TOKEN }))[0]!.status).toBe(true);
    const again = results(await s.send([p], { token: TOKEN }))[0]!;
    expect(again.status).toBe(false);
    expect(again.unknown).toBeUndefined();
    expect(again.message).toMatch(/already has a log with the same timestamp/);
    expect(again.message).not.toMatch(/<|href/);
    expect(DUPLICATE.some((re) => re.test(again.message))).toBe(true);
    expect(sim.checkins()).toHaveLength(1);
  });

  it("refuses each bad punch with Frappe's own words, HTML removed, and delivers the others", async () => {
    const a = await sender().send(
      [
        punch('777'),
        punch('900'),
        punch('901'),
        punch('105'),
        punch('901', '2026-11-02 22:00:00', { direction: 'in' }),
      ],
      { token: TOKEN },
    );
    const r = results(a);
    expect(r.map((x) => x.status)).toEqual([false, false, false, true, true]);
    expect(r[0]!.message).toBe("No Employee found for the given employee field value. 'attendance_device_id': 777");
    expect(r[1]!.message).toMatch(/^Transactions cannot be created for an Inactive Employee HR-EMP-\d+\.$/);
    expect(r[2]!.message).toBe('Log Type is required for check-ins falling in the shift: Night.');
    for (const x of r.slice(0, 3)) {
      expect(x.unknown).toBeUndefined();
      expect(DUPLICATE.some((re) => re.test(x.message))).toBe(false);
    }
    expect(sim.checkins()).toHaveLength(2);
  });

  it('a refused key is an auth failure of the whole batch, and the rest is not sent', async () => {
    const a = await sender().send(
      [punch('101'), punch('102'), punch('103'), punch('106'), punch('107'), punch('108')],
      {
        token: `${KEY}:wrong-secret-123`,
      },
    );
    expect(a.kind).toBe('auth');
    expect(a.kind === 'auth' && a.httpStatus).toBe(401);
    // At most one call per worker went out before the refusal stopped the others.
    expect(sim.stats().checkinCalls).toBeLessThanOrEqual(4);
    expect(sim.checkins()).toHaveLength(0);
  });

  it('a refused key is said once in the log and the status, not "Frappe refused the API key and secret (Frappe refused ...)"', async () => {
    // Found by a site admin's trial (the Frappe key rotated while punches waited): the AUTH FAILED
    // line and the status's last error said the refusal twice, once in punchgate's words and once
    // more inside the sender's own.
    const a = await sender().send([punch('101')], { token: `${KEY}:wrong-secret-123` });
    expect(a.kind).toBe('auth');
    const lines: string[] = [];
    const destination = new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) });
    const logger = createLogger({ level: 'info', destination });
    let state: DeliveryRecord = {
      auth: 'ok',
      authFailedSince: null,
      lastAttemptAt: null,
      lastSuccessAt: null,
      lastError: null,
      lastErrorAt: null,
      lastResult: null,
      failingSince: null,
    };
    const health = new DeliveryHealth(
      { get: () => state, update: (p) => void (state = { ...state, ...p }) },
      logger,
      fakeClock(Date.UTC(2026, 10, 22, 12)),
      credentialWords('frappe', 'sinks[erp].apiKeyFile and apiSecretFile'),
      sim.url,
    );
    health.authFailed(a.kind === 'auth' ? a.message : '', 'refused', 180_000, undefined);
    const msg = (JSON.parse(lines[0]!) as { msg: string }).msg;
    expect(msg.match(/refused the API key and secret/g)).toHaveLength(1);
    expect(msg).toContain(': Frappe refused the API key and secret (HTTP 401 AuthenticationError)');
    // Nor its exception's name twice: "(HTTP 401 AuthenticationError): AuthenticationError: check ...".
    expect(msg).toContain('(HTTP 401 AuthenticationError): check the key and secret files of');
    expect(state.lastError!.match(/refused the API key and secret/g)).toHaveLength(1);
    expect(state.lastError).toMatch(/^Frappe refused the API key and secret \(HTTP 401 AuthenticationError\)/);
  });

  it('an API user without the right to create check-ins is an auth failure (403 PermissionError)', async () => {
    sim.setFaults({ noPermission: true });
    const a = await sender().send([punch('101')], { token: TOKEN });
    expect(a).toMatchObject({ kind: 'auth', httpStatus: 403 });
    expect(a.kind === 'auth' && a.message).toMatch(/Insufficient Permission for Employee Checkin/);
  });

  it("without that right, a code no Employee has is still refused with Frappe's words (the lookup comes before insert checks the right); the others wait uncharged", async () => {
    sim.setFaults({ noPermission: true });
    const r = results(await sender({ concurrency: 1 }).send([punch('999'), punch('101')], { token: TOKEN }));
    expect(r[0]).toMatchObject({ status: false });
    expect(r[0]!.unknown).toBeUndefined();
    expect(r[0]!.message).toContain(
      "No Employee found for the given employee field value. 'attendance_device_id': 999",
    );
    expect(r[1]).toMatchObject({ status: false, unknown: true });
    expect(r[1]!.message).toMatch(/Frappe refused the API user the right \(HTTP 403 PermissionError\)/);
    expect(sim.checkins()).toEqual([]);
  });

  it('a 417 lock wait timeout leaves the punch unknown (uncharged) and the next send delivers it', async () => {
    sim.setFaults({ lockTimeouts: 1 });
    const s = sender({ concurrency: 1 });
    const p1 = punch('101');
    const p2 = punch('102');
    const first = results(await s.send([p1, p2], { token: TOKEN }));
    expect(first[0]).toMatchObject({ status: false, unknown: true });
    expect(first[0]!.message).toMatch(/417 QueryTimeoutError.*Lock wait timeout/);
    expect(first[1]!.status).toBe(true);
    const again = results(await s.send([p1], { token: TOKEN }));
    expect(again[0]!.status).toBe(true);
    expect(sim.checkins()).toHaveLength(2);
  });

  it('every call locked out: the batch is transient after sending', async () => {
    sim.setFaults({ lockRate: 1, lockStatus: 500 });
    const a = await sender().send([punch('101'), punch('102')], { token: TOKEN });
    expect(a).toMatchObject({ kind: 'transient', afterSending: true, httpStatus: 500 });
  });

  it('5xx on some calls: those punches are unknown, the others delivered', async () => {
    sim.setFaults({ errorRate: 0.5, seed: 7 });
    const batch = Array.from({ length: 20 }, (_, i) => punch(String(101 + i)));
    const r = results(await sender().send(batch, { token: TOKEN }));
    const unknown = r.filter((x) => x.unknown);
    expect(unknown.length).toBeGreaterThan(0);
    expect(unknown.length).toBeLessThan(20);
    expect(unknown.every((x) => x.status === false && /HTTP 500/.test(x.message))).toBe(true);
    expect(sim.checkins()).toHaveLength(20 - unknown.length);
  });

  it('the site down (nginx 502) fails the batch as transient', async () => {
    sim.setFaults({ down: true });
    const a = await sender().send([punch('101'), punch('102')], { token: TOKEN });
    expect(a).toMatchObject({ kind: 'transient', httpStatus: 502 });
    expect(sim.checkins()).toHaveLength(0);
  });

  it('nothing listening: transient before sending, one call per worker at most', async () => {
    const gone = await startFrappeSim({ keys: [{ key: KEY, secret: SECRET }] });
    const url = gone.url;
    await gone.stop();
    const a = await sender({}, url).send(
      [punch('101'), punch('102'), punch('103'), punch('104'), punch('105'), punch('106')],
      { token: TOKEN },
    );
    expect(a).toMatchObject({ kind: 'transient', afterSending: false });
    expect(a.kind === 'transient' && a.message).toMatch(/ECONNREFUSED/);
  });

  it('the old erpnext path on a site without it: request-failed naming the method setting', async () => {
    const only = await startFrappeSim({ keys: [{ key: KEY, secret: SECRET }], apps: ['hrms'] });
    try {
      const a = await sender({ method: 'erpnext' }, only.url).send([punch('101'), punch('102')], { token: TOKEN });
      expect(a.kind).toBe('request-failed');
      expect(a.kind === 'request-failed' && a.message).toMatch(/check method .*hrms/);
    } finally {
      await only.stop();
    }
  });

  it('an employeeFieldname the Employee table lacks: request-failed naming the field, not a server error retried for ever', async () => {
    // Frappe looks the employee up with frappe.db.get_values("Employee", {employee_fieldname: ...}):
    // MariaDB's 1054 "Unknown column" comes back as HTTP 500 pymysql OperationalError, the exc_type
    // of a lost database connection too; only its text tells that no retry cures it.
    const s = sender({ employeeFieldname: 'biometric_code', concurrency: 1 });
    const a = await s.send([punch('101'), punch('102'), punch('103')], { token: TOKEN });
    expect(a.kind).toBe('request-failed');
    const said = a.kind === 'request-failed' ? a.message : '';
    expect(said).toContain("'biometric_code'");
    expect(said).toContain('employeeFieldname of sink frappe-hr');
    // The rest is not sent: each call would fail alike.
    expect(sim.stats().checkinCalls).toBe(1);
    expect(sim.checkins()).toHaveLength(0);
  });

  it('a site that asks every check-in for its location (HR Settings, v15+): request-failed naming the setting, no punch refused', async () => {
    // hrms EmployeeCheckin.validate_distance_from_shift_location: with Allow Geolocation Tracking on,
    // every check-in without latitude and longitude is refused, whoever and whenever: a setting of
    // the site, not a verdict on the punch (refused, each would go dead while the setting stays).
    sim.setFaults({ geolocationTracking: true });
    const s = sender({ concurrency: 1 });
    const a = await s.send([punch('101'), punch('102'), punch('103')], { token: TOKEN });
    expect(a.kind).toBe('request-failed');
    expect(a.kind === 'request-failed' && a.message).toContain('Allow Geolocation Tracking');
    expect(sim.stats().checkinCalls).toBe(1);
    // A duplicate is still told apart first (validate_duplicate_log runs before).
    sim.setFaults({ geolocationTracking: false });
    const p = punch('104');
    expect(results(await s.send([p], { token: TOKEN }))[0]!.status).toBe(true);
    sim.setFaults({ geolocationTracking: true });
    expect(results(await s.send([p], { token: TOKEN }))[0]).toMatchObject({ status: false, duplicate: true });
  });

  // frappe/model/base_document.py db_insert raises DuplicateEntryError (HTTP 409) when the new
  // check-in's name is taken: a naming series behind its documents, met by every call alike until
  // someone moves it on. Read as unknown, each punch went back to the queue uncharged, for ever,
  // with no word of the fix.
  it('a naming series behind its check-ins (409 DuplicateEntryError): request-failed naming the fix, nothing charged or doubled', async () => {
    const s = sender({ concurrency: 1 });
    expect(results(await s.send([punch('101', '2026-11-02 08:00:00')], { token: TOKEN }))[0]!.status).toBe(true);
    const taken = sim.checkins()[0]!.name;
    sim.setFaults({ seriesBehind: true });
    const a = await s.send([punch('102', '2026-11-02 09:00:00'), punch('103', '2026-11-02 09:01:00')], {
      token: TOKEN,
    });
    expect(a).toMatchObject({ kind: 'request-failed', httpStatus: 409 });
    const said = a.kind === 'request-failed' ? a.message : '';
    expect(said).toContain(taken);
    expect(said).toMatch(/Employee Checkin naming series is behind its check-ins/);
    expect(said).toMatch(/Update Series Counter/);
    expect(said).toMatch(/is another punch \(another time\)/);
    expect(said).not.toContain(SECRET);
    // The rest of the batch is not sent: each call would meet the same name.
    expect(sim.stats().checkinCalls).toBe(2);
    expect(sim.checkins()).toHaveLength(1);
    // The series moved on: the same punches pass, once each.
    sim.setFaults({ seriesBehind: false });
    const r = results(
      await s.send([punch('102', '2026-11-02 09:00:00'), punch('103', '2026-11-02 09:01:00')], { token: TOKEN }),
    );
    expect(r.map((x) => x.status)).toEqual([true, true]);
    expect(sim.checkins()).toHaveLength(3);
  });

  it('a 409 whose named check-in is this punch (its employee and time, another log type) is a duplicate, not sent again', async () => {
    const s = sender({ concurrency: 1 });
    // Delivered once without a direction; sent again with one, validate_duplicate_log (same
    // log type) lets it through, and the insert meets the name of the check-in that is this punch.
    expect(results(await s.send([punch('105', '2026-11-02 10:00:00')], { token: TOKEN }))[0]!.status).toBe(true);
    sim.setFaults({ seriesBehind: true });
    const r = results(await s.send([punch('105', '2026-11-02 10:00:00', { direction: 'in' })], { token: TOKEN }));
    expect(r[0]).toMatchObject({ status: false, duplicate: true });
    expect(r[0]!.message).toContain(sim.checkins()[0]!.name);
    expect(sim.checkins()).toHaveLength(1);
    // Same time, another employee: not this punch.
    const other = await s.send([punch('106', '2026-11-02 10:00:00', { direction: 'in' })], { token: TOKEN });
    expect(other).toMatchObject({ kind: 'request-failed', httpStatus: 409 });
    expect(other.kind === 'request-failed' && other.message).toMatch(/another punch \(another employee\)/);
  });

  it("over the site's rate limit (429 with Retry-After): transient before sending, the rest not sent, the wait Frappe names", async () => {
    sim.setFaults({ rateLimited: 1, rateLimitResetSeconds: 42 });
    const s = sender({ concurrency: 1 });
    const a = await s.send([punch('101'), punch('102')], { token: TOKEN });
    expect(a).toMatchObject({ kind: 'transient', afterSending: false, httpStatus: 429, retryAfterMs: 42_000 });
    expect(sim.stats().checkinCalls).toBe(0);
    expect(results(await s.send([punch('101')], { token: TOKEN }))[0]!.status).toBe(true);
  });

  it('never more calls in flight than the concurrency setting', async () => {
    sim.setFaults({ latencyMs: 20 });
    for (const c of [1, 4]) {
      sim.reset();
      seed();
      sim.setFaults({ latencyMs: 20 });
      const batch = Array.from({ length: 24 }, (_, i) =>
        punch(String(101 + i), `2026-11-03 10:${String(i).padStart(2, '0')}:00`),
      );
      const r = results(await sender({ concurrency: c }).send(batch, { token: TOKEN }));
      expect(r.every((x) => x.status)).toBe(true);
      expect(sim.stats().maxInFlight).toBe(c);
    }
  });

  it('an empty batch (the probe) asks who is logged in: answered when the key is taken, auth or transient otherwise', async () => {
    const s = sender();
    expect(await s.send([], { token: TOKEN })).toEqual({
      kind: 'answered',
      httpStatus: 200,
      overall: true,
      results: [],
    });
    expect(await s.send([], { token: `${KEY}:nope-nope-nope` })).toMatchObject({ kind: 'auth', httpStatus: 401 });
    sim.setFaults({ down: true });
    expect(await s.send([], { token: TOKEN })).toMatchObject({ kind: 'transient', httpStatus: 502 });
    expect(sim.checkins()).toHaveLength(0);
  });

  it('neither the key nor the secret comes back in any message', async () => {
    // A site that echoes what it was sent: the refusal quotes the employee field value, set to the token.
    const a = await sender().send([punch(TOKEN), punch(`x ${SECRET} y`), punch(KEY)], { token: TOKEN });
    const text = JSON.stringify(a);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(KEY);
    expect(text).toContain('[REDACTED]');
    const refused = await sender().send([punch('101')], { token: `${KEY}:wrong-${SECRET}` });
    expect(JSON.stringify(refused)).not.toContain(SECRET);
  });
});
