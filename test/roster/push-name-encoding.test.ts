/**
 * Names in a push terminal's own character set (`encoding: gbk`): OPERLOG user records read in
 * GBK through the real receiver and journal, sync-users queues renames and hires that the terminal
 * is sent in GBK; a terminal left at UTF-8 whose names came in GBK never gets them back as garbage.
 */
import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { runSyncUsers } from '../../src/roster/sync-command.js';
import { NameCodec } from '../../src/util/name-codec.js';
import { http, startReceiver, terminal } from '../adms/harness.js';
import { fakeClock } from '../helpers/tmp.js';

const gbk = new NameCodec('gbk');
const GBK = (s: string) => gbk.encode(s)!;

/** The answer's bytes as sent (the harness's `http` reads them as UTF-8 text). */
function getBytes(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('push terminal names in their character set', () => {
  let r: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  async function sync(rosterLines: string[], only?: 'hall') {
    const config = parseConfig(
      {
        site: 'adms',
        journal: { path: 'journal.db' },
        hrms: { baseUrl: 'http://127.0.0.1:9' },
        adms: { listen: '127.0.0.1:0' },
        terminals: [
          ...(only ? [] : [{ name: 'lobby', kind: 'adms', serial: 'GBK0001', timezone: 'UTC', encoding: 'gbk' }]),
          { name: 'hall', kind: 'adms', serial: 'UTF0001', timezone: 'UTC' },
        ],
      },
      r!.tmp.dir,
    );
    const roster = r!.tmp.path('roster.csv');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(roster, rosterLines.join('\n') + '\n');
    const output = { code: -1, out: '', err: '' };
    output.code = await runSyncUsers(
      { roster },
      {
        config,
        journal: r!.journal,
        now: () => Date.now(),
        out: { write: (s: string) => (output.out += s) },
        err: { write: (s: string) => (output.err += s) },
        scrub: (s) => s,
      },
    );
    return output;
  }

  async function upload(serial: string, lines: string[]) {
    await http(r!.url, 'GET', `/iclock/cdata?SN=${serial}&options=all&pushver=2.4.1`);
    const body = GBK(lines.join('\n') + '\n');
    const res = await http(r!.url, 'POST', `/iclock/cdata?SN=${serial}&table=OPERLOG&Stamp=1`, body);
    expect(res.status).toBe(200);
  }

  it('reads GBK names from OPERLOG and sends renames and hires in GBK', async () => {
    r = await startReceiver({
      terminals: [terminal('lobby', 'GBK0001', { encoding: 'gbk' }), terminal('hall', 'UTF0001')],
    });
    await upload('GBK0001', ['USER PIN=1001\tName=张三\tPri=0\tCard=111', 'USER PIN=1002\tName=王\tPri=0']);
    expect(r.store.users('lobby', 'GBK0001').map((u) => `${u.pin} ${u.name}`)).toEqual(['1001 张三', '1002 王']);

    const run = await sync(['code,name,card', '1001,张三,111', '1002,王五,', '1003,李四,']);
    expect(run.out).toMatch(/lobby .*0 removed; 1 unchanged/);
    const answer = await getBytes(`${r.url}/iclock/getrequest?SN=GBK0001`);
    expect(answer.includes(GBK('PIN=1002\tName=王五\t'))).toBe(true);
    expect(answer.includes(GBK('PIN=1003\tName=李四\t'))).toBe(true);
    expect(answer.toString('utf8')).not.toContain('王五');
  });

  it('reads Security PUSH user tables (tabledata) in the terminal character set, and says names that are no text', async () => {
    r = await startReceiver({
      terminals: [terminal('door', 'SEC0001', { encoding: 'gbk' }), terminal('hall', 'UTF0001')],
    });
    const rows = GBK('user uid=1\tpin=3001\tname=张三\tprivilege=0\tcardno=9\n');
    for (const sn of ['SEC0001', 'UTF0001']) {
      const res = await http(r.url, 'POST', `/iclock/cdata?SN=${sn}&table=tabledata&tablename=user&count=1`, rows);
      expect(res).toEqual({ status: 200, body: 'user=1' });
    }
    expect(r.store.users('door', 'SEC0001').map((u) => `${u.pin} ${u.name}`)).toEqual(['3001 张三']);
    expect(r.store.users('hall', 'UTF0001')[0]!.name).toContain('\ufffd');
    expect(r.log.text()).toMatch(/hall: 1 user name\(s\) are no text in utf-8 \(PIN 3001\).*set encoding: for it/);
    expect(r.log.text()).not.toMatch(/door: .*no text/);
  });

  it('a command GBK cannot hold (queued before encoding was set) is settled failed once, never said sent, never sent again', async () => {
    const clock = fakeClock();
    r = await startReceiver({ terminals: [terminal('lobby', 'GBK0001', { encoding: 'gbk' })], clock });
    const bad = r.store.enqueue('lobby', 'DATA UPDATE USERINFO PIN=7\tName=محمد\tPri=0').command;
    const good = r.store.enqueue('lobby', 'DATA UPDATE USERINFO PIN=8\tName=张三\tPri=0').command;
    const answer = await getBytes(`${r.url}/iclock/getrequest?SN=GBK0001`);
    expect(answer.equals(GBK(`C:${good.id}:DATA UPDATE USERINFO PIN=8\tName=张三\tPri=0\n`))).toBe(true);
    const failed = r.store.commands('lobby').find((c) => c.id === bad.id)!;
    expect(failed).toMatchObject({ state: 'failed', returnCode: null, sentCount: 0 });
    expect(failed.result).toMatch(
      /not sent: its text has characters gbk \(the terminal's encoding\) cannot hold: "م" \(U\+0645\)/,
    );
    const sentLines = () =>
      r!.log
        .text()
        .split('\n')
        .filter((l) => l.includes('command sent'));
    expect(sentLines()).toHaveLength(1);
    expect(sentLines()[0]).toContain(`"id":${good.id}`);
    const warned = () =>
      r!.log
        .text()
        .split('\n')
        .filter((l) => l.includes(`command ${bad.id} failed, not sent`));
    expect(warned()).toHaveLength(1);

    // Past the resend time: the good one may go again, the failed one stays settled and unsaid.
    clock.advance(11 * 60_000);
    await getBytes(`${r.url}/iclock/getrequest?SN=GBK0001`);
    expect(warned()).toHaveLength(1);
    expect(r.store.commands('lobby').find((c) => c.id === bad.id)).toMatchObject({ state: 'failed', sentCount: 0 });
  });

  it('a GBK terminal left at UTF-8: its unknown names are never sent back, not even with a card change', async () => {
    r = await startReceiver({ terminals: [terminal('hall', 'UTF0001')] });
    await upload('UTF0001', ['USER PIN=2001\tName=张三\tPri=0\tCard=5']);
    expect(r.log.text()).toMatch(/hall: 1 user name\(s\) are no text in utf-8 \(PIN 2001\).*set encoding: for it/);
    const run = await sync(['code,name,card', '2001,张三,555'], 'hall');
    expect(run.out).toMatch(/refuse 2001 .*name not changed: the terminal's name for user 2001 is no text in utf-8/);
    expect(run.out).toMatch(/update 2001 .*not queued: the terminal's name for 2001 is unknown/);
    expect(r.store.commands('hall')).toEqual([]);
    expect(run.code).not.toBe(0);
  });
});
