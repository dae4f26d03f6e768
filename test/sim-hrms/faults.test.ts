import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom as mulberry32 } from '../../src/util/seeded-random.js';
import { MSG, startHrmsSim, type HrmsSim, type HrmsSimOptions } from '../../src/sim/hrms/index.js';
import { TOKEN, pushPunches } from './helpers.js';

let sims: HrmsSim[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.stop()));
  sims = [];
});

async function start(opts: HrmsSimOptions = {}): Promise<HrmsSim> {
  const s = await startHrmsSim({ tokens: [TOKEN], ...opts });
  sims.push(s);
  return s;
}

const batch = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ biometriccode: String(100 + from + i), logDate: '2025-03-01 08:00:00' }));

describe('fault switches', () => {
  it('delays answers by latencyMs', async () => {
    const s = await start({ faults: { latencyMs: 150 } });
    const t0 = performance.now();
    expect((await pushPunches(s, batch(1))).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
  });

  it('errorRate 1 answers 503 and records nothing', async () => {
    const s = await start({ faults: { errorRate: 1 } });
    const r = await pushPunches(s, batch(2));
    expect(r.status).toBe(503);
    expect(r.json).toEqual({ status: false, message: MSG.unavailable });
    expect(s.received()).toEqual([]);
    expect(s.requests()).toBe(1);
  });

  it('resetRate 1 destroys the connection without recording', async () => {
    const s = await start({ faults: { resetRate: 1 } });
    await expect(pushPunches(s, batch(2))).rejects.toThrow();
    expect(s.received()).toEqual([]);
    expect(s.requests()).toBe(1);
  });

  it('resetAfterProcessing records the punches, then destroys the connection', async () => {
    const s = await start({ faults: { resetRate: 1, resetAfterProcessing: true } });
    await expect(pushPunches(s, batch(2))).rejects.toThrow();
    expect(s.attendance().map((p) => p.biometriccode)).toEqual(['100', '101']);
    // The client retries after the lost answer: the HRMS now calls them duplicates.
    s.setFaults({ resetRate: 0 });
    const r = await pushPunches(s, batch(2));
    expect(r.json.Payload.map((p: { message: string }) => p.message)).toEqual([MSG.duplicate, MSG.duplicate]);
  });

  it('nonJsonRate 1 answers an HTML page with status 200 and records nothing', async () => {
    const s = await start({ faults: { nonJsonRate: 1 } });
    const r = await pushPunches(s, batch(1));
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html');
    expect(r.json).toBeUndefined();
    expect(r.text).toContain('502 Bad Gateway');
    expect(s.received()).toEqual([]);
  });

  it('shortPayload N answers and records only the first N punches', async () => {
    const s = await start({ faults: { shortPayload: 2 } });
    const r = await pushPunches(s, batch(5));
    expect(r.json.Payload).toHaveLength(2);
    expect(s.received().map((p) => p.biometriccode)).toEqual(['100', '101']);
  });

  it('tokenExpiresAt expires every token on the injected clock', async () => {
    let now = 10_000;
    const s = await start({ now: () => now, faults: { tokenExpiresAt: 20_000 } });
    expect((await pushPunches(s, batch(1))).status).toBe(200);
    now = 20_000;
    const r = await pushPunches(s, batch(1, 1));
    expect(r.status).toBe(401);
    expect(r.json.message).toBe(MSG.badToken);
    expect(s.received()).toHaveLength(1);
  });

  it('rateLimitPerSecond answers 429 with Retry-After within one clock second, nothing recorded', async () => {
    let now = 5_000;
    const s = await start({ now: () => now, faults: { rateLimitPerSecond: 2 } });
    expect((await pushPunches(s, batch(1, 0))).status).toBe(200);
    expect((await pushPunches(s, batch(1, 1))).status).toBe(200);
    const r = await pushPunches(s, batch(1, 2));
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json.status).toBe(false);
    expect(s.received()).toHaveLength(2);
    now = 6_000;
    expect((await pushPunches(s, batch(1, 2))).status).toBe(200);
  });

  it('maxBatch refuses a larger batch with 413, nothing recorded', async () => {
    const s = await start({ faults: { maxBatch: 3 } });
    const r = await pushPunches(s, batch(4));
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ status: false, message: 'Batch too large: 4 punches, at most 3 per request' });
    expect((await pushPunches(s, batch(3))).status).toBe(200);
    expect(s.received()).toHaveLength(3);
  });

  it('poisonCodes refuse the whole batch with 400, nothing recorded', async () => {
    const s = await start({ faults: { poisonCodes: ['102'] } });
    const r = await pushPunches(s, batch(4));
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ status: false, message: MSG.poisoned('102') });
    expect(s.received()).toEqual([]);
    expect((await pushPunches(s, batch(2))).status).toBe(200);
  });

  it('gives the same fault sequence for the same seed, a different one for another seed', async () => {
    const statuses = async (seed: number) => {
      const s = await start({ faults: { errorRate: 0.5, seed } });
      const out: number[] = [];
      for (let i = 0; i < 16; i++) out.push((await pushPunches(s, batch(1, i))).status);
      return out.join(',');
    };
    const a = await statuses(7);
    expect(await statuses(7)).toBe(a);
    expect(a).toContain('503');
    expect(a).toContain('200');
    expect(await statuses(8)).not.toBe(a);
  });

  it('spreads the PRNG roughly evenly', () => {
    const r = mulberry32(123);
    let below = 0;
    for (let i = 0; i < 10_000; i++) if (r() < 0.3) below++;
    expect(below).toBeGreaterThan(2700);
    expect(below).toBeLessThan(3300);
  });

  it('changes switches at run time, refuses unknown or out-of-range ones', async () => {
    const s = await start();
    s.setFaults({ errorRate: 1 });
    expect((await pushPunches(s, batch(1))).status).toBe(503);
    s.setFaults({ errorRate: 0 });
    expect((await pushPunches(s, batch(1))).status).toBe(200);
    expect(() => s.setFaults({ errorRat: 1 } as never)).toThrow(/unknown fault switch: errorRat/);
    expect(() => s.setFaults({ resetRate: 2 })).toThrow(/resetRate/);
    expect(s.faults().errorRate).toBe(0);
  });

  it('applies the faults to the users side too, not to the admin API', async () => {
    const s = await start({ faults: { errorRate: 1 } });
    const res = await request(`${s.url}/api.php/system/hrms/updateUser`, {
      method: 'POST',
      body: '{}',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(503);
    await res.body.dump();
    const admin = await request(`${s.url}/__sim/received`);
    expect(admin.statusCode).toBe(200);
    expect(await admin.body.json()).toEqual([]);
  });
});
