import { afterEach, describe, expect, it } from 'vitest';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';

/**
 * Query keys in another case than ZKTeco's document writes them (`sn=`, `TABLE=`, `stamp=`):
 * the servers that push firmware was made against (ZKTeco's ASP.NET `cdata.aspx`, Request["SN"])
 * read query keys whatever their case, so firmware and clones that write them so work there and
 * went unnoticed. Such a terminal was answered 400 without a word in the log or the status: its
 * punches waited on it for ever.
 */
describe('ADMS receiver: query keys in another case', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('sn=, TABLE=, stamp= are read as SN=, table=, Stamp=; the punch is journalled once', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const up = await http(
      r.url,
      'POST',
      `/iclock/cdata.aspx?sn=${SN}&TABLE=attlog&stamp=777`,
      attlog(['1001\t2026-11-01 08:00:00\t0\t1']),
    );
    expect(up).toEqual({ status: 200, body: 'OK:1' });
    const rows = r.journal.queries.list();
    expect(rows.map((p) => [p.terminal, p.biometricCode, p.logTime])).toEqual([
      ['lobby', '1001', '2026-11-01 08:00:00'],
    ]);
    const hs = await http(r.url, 'GET', `/iclock/cdata?sn=${SN}&Options=all&PushVer=2.4.1`);
    expect(hs.status).toBe(200);
    expect(hs.body).toContain(`GET OPTION FROM: ${SN}\n`);
    expect(hs.body).toContain('ATTLOGStamp=777\n');
    // The key as the document writes it wins over another spelling of it.
    const both = await http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${SN}&sn=NOTME&table=ATTLOG&Stamp=778`,
      attlog(['1002\t2026-11-01 08:01:00\t1\t1']),
    );
    expect(both).toEqual({ status: 200, body: 'OK:1' });
    expect(r.journal.queries.list()).toHaveLength(2);
  });
});
