import { afterEach, describe, expect, it } from 'vitest';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import { OdooSender } from '../../src/sinks/odoo/sender.js';
import type { OdooSinkOptions } from '../../src/sinks/odoo/options.js';
import type { SinkPunch } from '../../src/sinks/types.js';
import { DEFAULT_SIM_KEY, startOdooSim, type OdooSim, type OdooSimOptions } from '../../src/sim/odoo/index.js';

/** The default duplicate patterns of delivery.patterns.duplicate (src/config/schema.ts). */
const DUPLICATE = [/already exist/i, /duplicate/i, /already (been )?(added|recorded|marked)/i];

const KEY = DEFAULT_SIM_KEY;
let open: Array<{ stop(): Promise<void> } | { close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.reverse()) await ('stop' in o ? o.stop() : o.close());
  open = [];
});

const EMPLOYEES = [
  { name: 'Ann Lee', barcode: '1001', pin: '71', x_punch_code: 'A1' },
  { name: 'Bob Roy', barcode: '1002', pin: '72', x_punch_code: 'B2' },
  { name: 'Cem Oz', barcode: '1003', pin: '73', x_punch_code: 'C3' },
  { name: 'Dan Wu', barcode: '1004', pin: '74', x_punch_code: 'D4' },
  { name: 'Eve Kim', barcode: '1005', pin: '75', x_punch_code: 'E5' },
];

async function setup(simOpts: OdooSimOptions = {}, sinkOpts: Partial<OdooSinkOptions> = {}) {
  const sim = await startOdooSim({ employees: EMPLOYEES, ...simOpts });
  open.push(sim);
  const sender = new OdooSender({
    baseUrl: sim.url,
    database: 'odoo',
    login: 'punchgate',
    timeoutMs: 5000,
    ...sinkOpts,
  });
  open.push(sender);
  return { sim, sender };
}

let seq = 0;
function punch(code: string, logTime: string, direction?: 'in' | 'out', timezone = 'Europe/Berlin'): SinkPunch {
  return {
    devicelogId: `d${++seq}`,
    biometricCode: code,
    logTime,
    terminal: 'gate',
    device: 'SN1',
    timezone,
    ...(direction ? { direction } : {}),
  };
}

function results(a: AttendanceAnswer) {
  if (a.kind !== 'answered') throw new Error(`expected answered, got ${a.kind}: ${'message' in a ? a.message : ''}`);
  return a.results;
}

/** The records as [employee, check_in, check_out], by employee then time (employees are written in parallel). */
const pairs = (sim: OdooSim) =>
  sim.store.attendances
    .map((a) => [a.employee_id, a.check_in, a.check_out || null] as const)
    .sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1]));

describe.each([
  ['JSON-2 (Odoo 19)', 19, 'json2'],
  ['JSON-RPC (Odoo 17)', 17, 'jsonrpc'],
] as const)('Odoo sink through %s', (_name, version, kind) => {
  it('pairs in/out in UTC and picks the API from the version', async () => {
    const { sim, sender } = await setup({ version });
    const r = results(
      await sender.send(
        [
          punch('1001', '2026-07-01 08:00:00', 'in'),
          punch('1001', '2026-07-01 17:00:00', 'out'),
          punch('1002', '2026-07-01 09:00:00', 'in'),
        ],
        { token: KEY },
      ),
    );
    expect(r.map((x) => x.status)).toEqual([true, true, true]);
    expect(sender.apiKind()).toBe(kind);
    expect(pairs(sim)).toEqual([
      [1, '2026-07-01 06:00:00', '2026-07-01 15:00:00'],
      [2, '2026-07-01 07:00:00', null],
    ]);
  });

  it('a punch sent again after Odoo wrote it but the answer was lost makes no second record', async () => {
    const { sim, sender } = await setup({ version });
    const batch = [punch('1001', '2026-07-01 08:00:00'), punch('1001', '2026-07-01 16:30:00')];
    sim.setFaults({ dropAfterWrite: 1 });
    const first = await sender.send(batch, { token: KEY });
    // The first write happened, its answer was lost: uncharged, and the second waited behind it.
    if (first.kind === 'answered') expect(first.results.every((x) => x.unknown)).toBe(true);
    else expect(first.kind).toBe('transient');
    expect(sim.store.attendances).toHaveLength(1);
    const again = results(await sender.send(batch, { token: KEY }));
    expect(again[0]).toMatchObject({ status: true });
    expect(DUPLICATE.some((p) => p.test(again[0]!.message))).toBe(true);
    expect(pairs(sim)).toEqual([[1, '2026-07-01 06:00:00', '2026-07-01 14:30:00']]);
    // And the whole batch once more (a replaced box): both duplicates, nothing written.
    const third = results(await sender.send(batch, { token: KEY }));
    expect(third.every((x) => x.status && DUPLICATE.some((p) => p.test(x.message)))).toBe(true);
    expect(sim.store.attendances).toHaveLength(1);
  });

  it("Odoo's validity refusals and an unknown employee are per-punch refusals with the message", async () => {
    const { sim, sender } = await setup({ version });
    const r = results(
      await sender.send(
        [
          punch('1001', '2026-07-01 08:00:00', 'in'),
          punch('1001', '2026-07-01 09:00:00', 'in'),
          punch('9999', '2026-07-01 09:00:00', 'in'),
          punch('1002', '2026-07-01 09:00:00', 'out'),
        ],
        { token: KEY },
      ),
    );
    expect(r[0]!.status).toBe(true);
    expect(r[1]).toMatchObject({ status: false });
    expect(r[1]!.message).toBe(
      "Cannot create new attendance record for Ann Lee, the employee hasn't checked out since Jul 1, 2026, 6:00:00 AM",
    );
    expect(r[2]).toMatchObject({
      status: false,
      message: 'no employee in Odoo has barcode "9999" (or that employee is archived)',
    });
    expect(r[3]).toMatchObject({ status: false });
    expect(r[3]!.message).toMatch(/no open attendance/);
    expect(sim.store.attendances).toHaveLength(1);
  });

  it("a user without the right to write attendances is an auth failure with Odoo's words and the fix", async () => {
    const { sim, sender } = await setup({ version, faults: { noWriteAccess: true } });
    const a = await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY });
    expect(a.kind).toBe('auth');
    expect((a as { message: string }).message).toMatch(/You are not allowed to create 'Attendance'.*Administrator/);
    expect(sim.store.attendances).toHaveLength(0);
  });

  it('a wrong API key is an auth failure of the batch, and the key is in no message', async () => {
    const { sim, sender } = await setup({ version });
    const a = await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: 'wrong-key-123456' });
    expect(a.kind).toBe('auth');
    expect(JSON.stringify(a)).not.toContain('wrong-key-123456');
    expect(sim.store.attendances).toHaveLength(0);
  });
});

describe('Odoo sink pairing', () => {
  it("alternates without a direction; an overnight shift stays one record; a stale open record blocks with Odoo's words", async () => {
    const { sim, sender } = await setup({}, { longestShiftHours: 14 });
    const r = results(
      await sender.send(
        [
          // Given out of order: applied in time order per employee.
          punch('1001', '2026-07-02 06:00:00'),
          punch('1001', '2026-07-01 22:00:00'),
          punch('1002', '2026-07-01 08:00:00'),
          punch('1002', '2026-07-01 12:00:00'),
          punch('1002', '2026-07-01 12:30:00'),
          punch('1002', '2026-07-01 17:00:00'),
          punch('1003', '2026-07-01 06:00:00'),
        ],
        { token: KEY },
      ),
    );
    expect(r.every((x) => x.status)).toBe(true);
    // Cem's record is open since 04:00 UTC; 20 h later is past the longest shift: a new record
    // would open, and Odoo refuses a second open record.
    const late = results(await sender.send([punch('1003', '2026-07-02 02:00:00')], { token: KEY }));
    expect(late[0]!.status).toBe(false);
    expect(late[0]!.message).toMatch(
      /^Cannot create new attendance record for Cem Oz, the employee hasn't checked out since/,
    );
    expect(pairs(sim)).toEqual([
      [1, '2026-07-01 20:00:00', '2026-07-02 04:00:00'],
      [2, '2026-07-01 06:00:00', '2026-07-01 10:00:00'],
      [2, '2026-07-01 10:30:00', '2026-07-01 15:00:00'],
      [3, '2026-07-01 04:00:00', null],
    ]);
  });

  it('a late punch inside a closed pair is refused by Odoo, never a crossed record', async () => {
    const { sim, sender } = await setup();
    results(
      await sender.send([punch('1001', '2026-07-01 08:00:00'), punch('1001', '2026-07-01 17:00:00')], { token: KEY }),
    );
    const r = results(await sender.send([punch('1001', '2026-07-01 12:00:00')], { token: KEY }));
    expect(r[0]!.status).toBe(false);
    expect(r[0]!.message).toBe(
      'Cannot create new attendance record for Ann Lee, the employee was already checked in on Jul 1, 2026, 10:00:00 AM',
    );
    const out = results(await sender.send([punch('1001', '2026-07-01 12:00:00', 'out')], { token: KEY }));
    expect(out[0]!.status).toBe(false);
    expect(pairs(sim)).toEqual([[1, '2026-07-01 06:00:00', '2026-07-01 15:00:00']]);
  });

  it('spring-forward and fall-back nights in Europe/Berlin pair in true UTC order', async () => {
    const { sim, sender } = await setup();
    const r = results(
      await sender.send(
        [
          // Night shift over the spring-forward change (02:00 -> 03:00 on 29 March 2026): 7 h worked.
          punch('1001', '2026-03-28 22:00:00', 'in'),
          punch('1001', '2026-03-29 06:00:00', 'out'),
          // A punch in the missing hour reads with winter time: 02:30 -> 01:30 UTC.
          punch('1002', '2026-03-29 02:30:00', 'in'),
          punch('1002', '2026-03-29 05:00:00', 'out'),
          // Over the fall-back change (03:00 -> 02:00 on 25 October 2026): 9 h worked.
          punch('1003', '2026-10-24 22:00:00', 'in'),
          punch('1003', '2026-10-25 06:00:00', 'out'),
          // The doubled hour: 02:30 is its first occurrence (summer time, 00:30 UTC).
          punch('1004', '2026-10-25 02:30:00', 'in'),
          punch('1004', '2026-10-25 02:45:00', 'out'),
        ],
        { token: KEY },
      ),
    );
    expect(r.every((x) => x.status)).toBe(true);
    expect(pairs(sim)).toEqual([
      [1, '2026-03-28 21:00:00', '2026-03-29 04:00:00'],
      [2, '2026-03-29 01:30:00', '2026-03-29 03:00:00'],
      [3, '2026-10-24 20:00:00', '2026-10-25 05:00:00'],
      [4, '2026-10-25 00:30:00', '2026-10-25 00:45:00'],
    ]);
  });

  it('zones with 30-minute offsets and a 30-minute DST change (Asia/Kolkata, Australia/Lord_Howe)', async () => {
    const { sim, sender } = await setup();
    const r = results(
      await sender.send(
        [
          punch('1001', '2026-07-01 09:00:00', 'in', 'Asia/Kolkata'),
          punch('1001', '2026-07-01 18:00:00', 'out', 'Asia/Kolkata'),
          // Lord Howe falls back 02:00 -> 01:30 on 5 April 2026 (+11 -> +10:30).
          punch('1002', '2026-04-04 22:00:00', 'in', 'Australia/Lord_Howe'),
          punch('1002', '2026-04-05 06:00:00', 'out', 'Australia/Lord_Howe'),
        ],
        { token: KEY },
      ),
    );
    expect(r.every((x) => x.status)).toBe(true);
    expect(pairs(sim)).toEqual([
      [1, '2026-07-01 03:30:00', '2026-07-01 12:30:00'],
      [2, '2026-04-04 11:00:00', '2026-04-04 19:30:00'],
    ]);
  });

  it('finds the employee by pin or a custom field', async () => {
    const { sim, sender } = await setup({}, { employeeField: 'x_punch_code' });
    expect(results(await sender.send([punch('B2', '2026-07-01 08:00:00')], { token: KEY }))[0]!.status).toBe(true);
    expect(sim.store.attendances[0]!.employee_id).toBe(2);
    const { sim: sim2, sender: byPin } = await setup({}, { employeeField: 'pin' });
    expect(results(await byPin.send([punch('73', '2026-07-01 08:00:00')], { token: KEY }))[0]!.status).toBe(true);
    expect(sim2.store.attendances[0]!.employee_id).toBe(3);
  });

  it('caches employees found: one lookup for many batches; a code not found is asked again with the next batch', async () => {
    const now = Date.parse('2026-07-01T00:00:00Z');
    const sim = await startOdooSim({ employees: EMPLOYEES });
    open.push(sim);
    const sender = new OdooSender({ baseUrl: sim.url, database: 'odoo', api: 'json2' }, { clock: { now: () => now } });
    open.push(sender);
    for (let i = 0; i < 3; i++)
      await sender.send([punch('1001', `2026-07-01 0${i + 1}:00:00`), punch('5555', '2026-07-01 08:00:00')], {
        token: KEY,
      });
    // 1001 once; 5555 with each batch (one call for all the batch's unknown codes).
    expect(sim.stats.calls['hr.employee.search_read']).toBe(3);
    // Found by a new-user trial: the employee added and `punches retry` run at once, the punch
    // was refused again (the miss was remembered a minute). Now it goes in with the next batch.
    sim.store.addEmployee({ name: 'New Hire', barcode: '5555' });
    const r = results(await sender.send([punch('5555', '2026-07-01 09:00:00')], { token: KEY }));
    expect(r[0]!.status).toBe(true);
    expect(sim.stats.calls['hr.employee.search_read']).toBe(4);
    await sender.send([punch('5555', '2026-07-01 10:00:00'), punch('1001', '2026-07-01 11:00:00')], { token: KEY });
    expect(sim.stats.calls['hr.employee.search_read']).toBe(4);
  });
});

describe('Odoo sink failures', () => {
  it('Odoo down (503 page) and 5xx are transient for the whole batch; nothing written', async () => {
    const { sim, sender } = await setup({ faults: { down: true } });
    const a = await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY });
    expect(a).toMatchObject({ kind: 'transient', httpStatus: 503 });
    sim.setFaults({ down: false, errorRate: 1 });
    expect(await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY })).toMatchObject({
      kind: 'transient',
      httpStatus: 502,
    });
    sim.setFaults({ errorRate: 0 });
    expect(results(await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY }))[0]!.status).toBe(true);
  });

  it('a database Odoo 16-18 does not have is a failed request naming it, not a server error retried for ever', async () => {
    // JSON-RPC opens the named database before it checks the login (odoo/service/common.py
    // exp_authenticate: odoo.registry(db)): PostgreSQL's 'database "prod" does not exist' comes
    // back as psycopg2.OperationalError, where the simulator used to answer false like a wrong key.
    const { sim, sender } = await setup({ version: 17 }, { database: 'prod' });
    const a = await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY });
    expect(a.kind).toBe('request-failed');
    expect('message' in a && a.message).toContain('Odoo has no database "prod"');
    expect('message' in a && a.message).toContain("check the sink's database");
    expect(sim.store.attendances).toHaveLength(0);
  });

  it('a database Odoo 19 does not have (JSON-2: a plain 404) is a failed request whose fix names the database', async () => {
    const { sim, sender } = await setup({ version: 19 }, { database: 'prod' });
    const a = await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY });
    expect(a.kind).toBe('request-failed');
    expect('message' in a && a.message).toMatch(/check the Odoo sink's baseUrl, database "prod"/);
    expect(sim.store.attendances).toHaveLength(0);
  });

  it('an employeeField hr.employee lacks is a failed request naming it, not a server error retried for ever', async () => {
    // Odoo checks the search's domain before it runs it (odoo/osv/expression.py: ValueError
    // "Invalid field hr.employee.x in leaf (...)", Odoo 16 "Invalid field 'x' in leaf ..."): a
    // builtins.ValueError, HTTP 500 with JSON-2, that no retry cures.
    for (const version of [17, 19]) {
      const { sim, sender } = await setup({ version }, { employeeField: 'x_no_such_field' });
      const a = await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY });
      expect(a.kind).toBe('request-failed');
      expect('message' in a && a.message).toMatch(/Odoo has no field .*x_no_such_field.*employeeField/);
      expect(sim.store.attendances).toHaveLength(0);
    }
  });

  it('Attendances not installed is a failed request naming the app, not a refusal of each punch', async () => {
    // JSON-RPC: odoo/service/model.py execute_cr raises UserError("Object hr.attendance doesn't
    // exist"); JSON-2 answers 404 NotFound "the model 'hr.attendance' does not exist".
    for (const version of [17, 19]) {
      const { sender } = await setup({ version, withoutAttendances: true });
      const a = await sender.send([punch('1001', '2026-07-01 08:00:00'), punch('1002', '2026-07-01 08:00:00')], {
        token: KEY,
      });
      expect(a.kind, `Odoo ${version}`).toBe('request-failed');
      expect('message' in a && a.message).toContain('hr_attendance');
    }
  });

  it('no server at all is transient, sent nowhere', async () => {
    const sim = await startOdooSim();
    const url = sim.url;
    await sim.stop();
    const sender = new OdooSender({ baseUrl: url, database: 'odoo', api: 'json2' });
    open.push(sender);
    expect(await sender.send([punch('1001', '2026-07-01 08:00:00')], { token: KEY })).toMatchObject({
      kind: 'transient',
      afterSending: false,
    });
  });

  it("a serialization failure is unknown for that punch only; a refusal switch carries Odoo's UserError", async () => {
    const { sim, sender } = await setup({ faults: { refuseCodes: ['1002'] } });
    const r = results(
      await sender.send([punch('1001', '2026-07-01 08:00:00'), punch('1002', '2026-07-01 08:00:00')], { token: KEY }),
    );
    expect(r[0]!.status).toBe(true);
    expect(r[1]).toMatchObject({
      status: false,
      message: 'The simulator refuses attendances of this employee (fault switch refuseCodes).',
    });
    expect(r[1]!.unknown).toBeUndefined();
    sim.setFaults({ serializationRate: 1 });
    const s = await sender.send([punch('1001', '2026-07-01 17:00:00'), punch('1003', '2026-07-01 08:00:00')], {
      token: KEY,
    });
    expect(s).toMatchObject({ kind: 'transient', afterSending: true });
    expect((s as { message: string }).message).toMatch(/concurrent update/);
    sim.setFaults({ serializationRate: 0 });
    expect(results(await sender.send([punch('1001', '2026-07-01 17:00:00')], { token: KEY }))[0]!.status).toBe(true);
    expect(pairs(sim)).toEqual([[1, '2026-07-01 06:00:00', '2026-07-01 15:00:00']]);
  });

  it('never more calls in flight than the concurrency setting, and as many as it allows', async () => {
    const batch = () =>
      EMPLOYEES.flatMap((e, k) =>
        Array.from({ length: 8 }, (_, i) =>
          punch(e.barcode, `2026-07-${String(k + 1).padStart(2, '0')} ${String(i + 6).padStart(2, '0')}:00:00`),
        ),
      );
    // Speed is the bench's (npm run bench -- sinks), never a timed test: here only the calls in flight.
    for (const concurrency of [1, 4]) {
      const { sim, sender } = await setup({ faults: { latencyMs: 5 } }, { concurrency, api: 'json2' });
      const punches = batch();
      const r = results(await sender.send(punches, { token: KEY }));
      expect(r.every((x) => x.status)).toBe(true);
      expect(sim.stats.maxInFlight).toBeLessThanOrEqual(concurrency);
      expect(sim.stats.maxInFlight).toBe(concurrency);
      expect(sim.store.attendances).toHaveLength(20);
    }
  });
});
