import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { TOKEN, alice, pushPunches } from './helpers.js';

let sim: HrmsSim | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

async function admin(s: HrmsSim, method: 'GET' | 'POST', route: string, body?: unknown) {
  const res = await request(`${s.url}/__sim/${route}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  return { status: res.statusCode, json: (await res.body.json()) as never as Record<string, unknown> & unknown[] };
}

describe('admin API /__sim/', () => {
  it('reads received, attendance, employees and the request count without a token', async () => {
    sim = await startHrmsSim({ tokens: [TOKEN], employees: [alice] });
    await pushPunches(sim, [
      { biometriccode: '101', logDate: '2025-03-01 08:00:00', devicelogId: 'd1' },
      { biometriccode: '404', logDate: '2025-03-01 08:00:00' },
    ]);
    const received = await admin(sim, 'GET', 'received');
    expect(received.status).toBe(200);
    expect(received.json).toMatchObject([
      { biometriccode: '101', devicelogId: 'd1', outcome: 'added', requestNo: 1 },
      { biometriccode: '404', outcome: 'unknown_code', requestNo: 1 },
    ]);
    expect((await admin(sim, 'GET', 'attendance')).json).toHaveLength(1);
    expect((await admin(sim, 'GET', 'employees')).json).toMatchObject([
      { employeeId: 'E0001', fields: { username: 'alice' } },
    ]);
    expect((await admin(sim, 'GET', 'requests')).json).toEqual({ requests: 1 });
  });

  it('sets faults, refuses bad ones, adds tokens and employees, and resets', async () => {
    sim = await startHrmsSim({ tokens: [TOKEN] });
    const f = await admin(sim, 'POST', 'faults', { errorRate: 1 });
    expect(f.json).toMatchObject({ errorRate: 1 });
    expect((await pushPunches(sim, [])).status).toBe(503);
    const bad = await admin(sim, 'POST', 'faults', { errorRate: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ status: false, message: expect.stringMatching(/errorRate/) });

    expect((await admin(sim, 'POST', 'tokens', { token: 'second-token-789' })).json).toEqual({ status: true });
    expect((await admin(sim, 'POST', 'employees', alice)).json).toMatchObject({
      status: true,
      message: 'Employee created',
    });

    expect((await admin(sim, 'POST', 'reset')).json).toEqual({ status: true });
    expect(sim.faults().errorRate).toBe(0);
    expect(sim.employees()).toEqual([]);
    expect(sim.requests()).toBe(0);
    // Tokens survive a reset: a child-process daemon keeps the one it was given.
    expect(
      (await pushPunches(sim, [{ biometriccode: '1', logDate: '2025-03-01 08:00:00' }], 'second-token-789')).status,
    ).toBe(200);
    expect((await admin(sim, 'GET', 'nothing')).status).toBe(404);
  });
});
