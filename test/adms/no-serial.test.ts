import { afterEach, describe, expect, it } from 'vitest';
import { checkPushRefusals } from '../../src/check/adms-check.js';
import { refusalAlerts } from '../../src/status/push.js';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A push request with no SN= at all (or one that is not a serial number): a terminal behind a
 * proxy that drops the query, or firmware that names itself another way, was answered 400 with
 * nothing in the log nor the status. The admin whose terminal does so saw nothing.
 */
describe('ADMS receiver: a request without SN=', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('is answered 400, logged once (address named), and shown where unknown terminals show', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ7232160001')] });
    const up = await http(r.url, 'POST', '/iclock/cdata?table=ATTLOG&Stamp=1', attlog(['1\t2026-11-01 08:00:00']));
    expect(up.status).toBe(400);
    expect((await http(r.url, 'GET', '/iclock/getrequest')).status).toBe(400);
    expect((await http(r.url, 'GET', '/iclock/cdata?SN=bad.serial%20x&options=all')).status).toBe(400);
    expect(r.journal.queries.list()).toEqual([]);
    await waitFor(() => r!.store.refusals()[0]?.count === 3, 5_000, 'the three refusals recorded');
    const rows = r.store.refusals();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ address: '127.0.0.1', reason: 'unknown', count: 3 });
    const warned = r.log.lines().filter((l) => String(l.msg).includes('without a serial number'));
    expect(warned).toHaveLength(1); // logged once, not per request
    expect(warned[0]!.msg).toContain('127.0.0.1');
    const shown = rows.map((x) => ({
      ...x,
      firstSeenAt: new Date(x.firstSeenAt).toISOString(),
      lastSeenAt: new Date(x.lastSeenAt).toISOString(),
    }));
    const [alert] = refusalAlerts(shown);
    expect(alert!.alert.cause).toContain('without a serial number (SN=) from 127.0.0.1');
    expect(alert!.alert.cause).not.toContain('SN= is pushing');
    expect(alert!.alert.fix).toMatch(/query string/);
    const [check] = checkPushRefusals(rows, [terminal('lobby', 'CQZ7232160001')]);
    expect(check!.name).toBe('push without SN=');
  });
});
