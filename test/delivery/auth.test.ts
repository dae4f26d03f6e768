import { writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialWords } from '../../src/delivery/index.js';
import { createLogger } from '../../src/util/logger.js';
import { expectDeliveredExactlyOnce, makePunches, startRig, TOKEN, type Rig } from './helpers.js';

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw.push(chunk.toString());
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const logger = createLogger({ level: 'debug', destination: dest });
  return { logger, lines, raw };
}

describe('delivery when the HRMS refuses the token', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('charges no attempt, says auth failed, logs once, and resumes when a new token file is written', async () => {
    rig = await startRig({ token: 'stale-token-000', delivery: { authRetryMs: 120_000 } });
    const log = captureLogger();
    const d = rig.makeDeliverer({ logger: log.logger });
    const punches = makePunches(25);
    rig.journal.ingest(punches);

    const r1 = await d.deliverBatch();
    expect(r1).toMatchObject({ result: 'auth', released: 10, waitMs: 120_000 });
    expect(r1.message).toBe('Bearer token is not correct');
    rig.clock.advance(120_000);
    const r2 = await d.deliverBatch();
    expect(r2.result).toBe('auth');

    // No attempt charged, nothing inflight, nothing recorded by the HRMS.
    const all = rig.journal.queries.list();
    expect(all.every((p) => p.state === 'pending' && p.attempts === 0)).toBe(true);
    expect(rig.sim.received()).toHaveLength(0);
    const state = rig.journal.deliveryState.get();
    expect(state).toMatchObject({ auth: 'failed', authFailedSince: rig.clock.now() - 120_000 });
    expect(state.lastError).toMatch(/HRMS refused the token: Bearer token is not correct/);

    // Loud once per transition, not per retry; the token itself never appears.
    const errors = log.lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.msg)).toMatch(/AUTH FAILED/);
    expect(log.raw.join('')).not.toContain('stale-token-000');

    // An admin writes the right token: picked up on the next try, no restart.
    writeFileSync(rig.tokenFile, `${TOKEN}\n`);
    rig.clock.advance(120_000);
    const report = await d.drain({ maxWaitMs: 0 });
    expect(report).toMatchObject({ delivered: 25, stoppedBy: 'done' });
    expect(rig.journal.deliveryState.get()).toMatchObject({ auth: 'ok', authFailedSince: null });
    expect(log.lines.some((l) => l.level === 30 && /accepts the token again/.test(String(l.msg)))).toBe(true);
    expectDeliveredExactlyOnce(rig, punches);
  });

  it('a Frappe or Odoo sink is named with its own credential and files, in the log and the state', async () => {
    rig = await startRig({ token: 'stale-token-000' });
    for (const [kind, who, place] of [
      ['frappe', 'Frappe refused the API key and secret', 'sinks[erp].apiKeyFile and apiSecretFile'],
      ['odoo', 'Odoo refused the API key', 'sinks[erp].apiKeyFile'],
    ] as const) {
      const log = captureLogger();
      const d = rig.makeDeliverer({ logger: log.logger, credential: credentialWords(kind, place) });
      rig.journal.ingest(makePunches(3, { start: kind === 'frappe' ? 0 : 100 }));
      expect((await d.deliverBatch()).result).toBe('auth');
      const error = log.lines.find((l) => l.level === 50);
      const kindWho = kind === 'frappe' ? 'Frappe' : 'Odoo';
      expect(String(error?.msg)).toMatch(
        new RegExp(`^AUTH FAILED: ${kindWho} delivery to http://127\\.0\\.0\\.1:\\d+/?: `),
      );
      expect(String(error?.msg)).toContain(`: ${who} (Bearer token is not correct)`);
      expect(String(error?.msg)).toContain(`(${place})`);
      expect(String(error?.msg)).not.toMatch(/HRMS|token in place/);
      expect(rig.journal.deliveryState.get().lastError).toBe(`${who}: Bearer token is not correct`);
      expect(log.raw.join('')).not.toContain('stale-token-000');
      await d.close();
    }
  });

  it('token expiry (tokenExpiresAt): delivery pauses at expiry without charging attempts', async () => {
    rig = await startRig();
    const punches = makePunches(20);
    rig.journal.ingest(punches);
    rig.sim.setFaults({ tokenExpiresAt: rig.clock.now() + 1000 });
    expect((await rig.deliverer.deliverBatch()).result).toBe('ok');
    rig.clock.advance(1000);
    const report = await rig.deliverer.drain({ maxWaitMs: 3_600_000 });
    expect(report).toMatchObject({ stoppedBy: 'auth', delivered: 0, remainingPending: 10 });
    expect(rig.journal.queries.list({ state: 'pending' }).every((p) => p.attempts === 0)).toBe(true);
    expect(rig.journal.deliveryState.get().auth).toBe('failed');
    // A fresh token from the HRMS (the expiry switch lifted, a new token issued and written).
    rig.sim.setFaults({ tokenExpiresAt: null });
    rig.sim.addToken('fresh-token-22222');
    writeFileSync(rig.tokenFile, 'fresh-token-22222');
    expect((await rig.deliverer.drain({ maxWaitMs: 0 })).delivered).toBe(10);
    expectDeliveredExactlyOnce(rig, punches);
  });

  it('a refused token followed by another failure (an error page) no longer says the token is refused', async () => {
    // A site admin fixed the token while a proxy answered 200 with an HTML page: the status kept
    // "AUTH FAILED: put a valid token" over an HRMS that no longer refused it (a new-admin trial).
    rig = await startRig({ token: 'stale-token-000', delivery: { authRetryMs: 60_000 } });
    rig.journal.ingest(makePunches(3));
    expect((await rig.deliverer.deliverBatch()).result).toBe('auth');
    expect(rig.journal.deliveryState.get()).toMatchObject({ auth: 'failed' });
    writeFileSync(rig.tokenFile, `${TOKEN}\n`);
    rig.sim.setFaults({ nonJsonRate: 1 });
    rig.clock.advance(60_000);
    expect((await rig.deliverer.deliverBatch()).result).not.toBe('auth');
    const state = rig.journal.deliveryState.get();
    expect(state).toMatchObject({ auth: 'unknown', authFailedSince: null });
    expect(state.failingSince).not.toBeNull();
    expect(state.lastError).toMatch(/not a JSON object/);
  });

  it('an unreadable token file counts as an auth failure (nothing sent, nothing charged)', async () => {
    rig = await startRig();
    rig.journal.ingest(makePunches(3));
    writeFileSync(rig.tokenFile, '');
    const r = await rig.deliverer.deliverBatch();
    expect(r).toMatchObject({ result: 'auth', requests: 0, released: 3 });
    expect(r.message).toMatch(/^no usable HRMS token: the token file .* is empty$/);
    expect(rig.sim.requests()).toBe(0);
    expect(rig.journal.queries.counts()).toMatchObject({ pending: 3, inflight: 0 });
  });
});
