import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnDaemon, statusUrl, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { pool } from '../helpers/pool.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';
import { http } from './harness.js';

/**
 * Issue 30, class 2, through `punchgate run` as a child process: what the LAN sends (invented
 * tables from the terminal's own address and from strangers, allowFrom spoofs from 200
 * addresses, idle connections from 70 addresses) stays bounded in /metrics, the alerts,
 * status.json and the daemon's memory, keeps the terminal's own kept upload, and leaves the
 * status page, /readyz and /metrics served to the box and to a scraper.
 */
const LOBBY = 'CQZ7232169101';
const FENCED = 'CQZ7232169102';

const rssMb = (d: DaemonProcess) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${d.child.pid}/status`, 'utf8'))?.[1]) / 1024;

/** A GET of the status server from `from`, with a deadline. */
function get(url: string, path: string, from?: string, timeoutMs = 3000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, url);
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, agent: false, ...(from ? { localAddress: from } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`${path} from ${from ?? '127.0.0.1'}: no answer in ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end();
  });
}

describe('nothing the LAN sends is unbounded, through punchgate run', () => {
  it('invented tables, strangers, allowFrom spoofs from 200 addresses and 70 idle addresses stay bounded and leave the box served', async () => {
    const stack = await startPushStack({
      terminals: [
        { name: 'lobby', serial: LOBBY },
        { name: 'fenced', serial: FENCED, allowFrom: ['127.0.0.1'] },
      ],
      status: { listen: '127.0.0.1:0' },
      adms: { maxConnectionsPerAddress: 8 },
    });
    const d = spawnDaemon(stack.configPath);
    const sockets: Socket[] = [];
    let holding = true;
    let connected = 0;
    try {
      const page = await statusUrl(d);
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver');
      // The terminal's own upload of a table punchgate does not read: kept raw, and must stay kept.
      const own = `/iclock/cdata?SN=${LOBBY}&table=OWNTABLE&Stamp=1`;
      expect((await http(stack.url, 'POST', own, 'a=1\tb=2\n')).status).toBe(200);
      const metricsBefore = (await get(page, '/metrics')).body;
      const rssBefore = rssMb(d);
      const body = `${'field=value\t'.repeat(60)}\n`.repeat(4);
      const jobs: (() => Promise<number>)[] = [];
      for (let i = 0; i < 500; i++) {
        // From the terminal's own address: kept, filed under 16 tables at most.
        jobs.push(
          async () => (await http(stack.url, 'POST', `/iclock/cdata?SN=${LOBBY}&table=T${i}X&Stamp=${i}`, body)).status,
        );
        // From strangers using its serial: refused, nothing kept.
        const from = `127.0.0.${2 + (i % 20)}`;
        jobs.push(
          async () => (await http(stack.url, 'POST', `/iclock/cdata?SN=${LOBBY}&table=S${i}Y`, body, {}, from)).status,
        );
        jobs.push(
          async () =>
            (await http(stack.url, 'POST', `/iclock/cdata?SN=${LOBBY}&table=tabledata&tablename=z${i}`, body, {}, from))
              .status,
        );
      }
      // allowFrom spoofs from 200 addresses.
      for (let i = 0; i < 200; i++)
        jobs.push(
          async () =>
            (
              await http(
                stack.url,
                'GET',
                `/iclock/ping?SN=${FENCED}`,
                undefined,
                {},
                `127.0.${1 + Math.floor(i / 100)}.${10 + (i % 100)}`,
              )
            ).status,
        );
      const statuses = await pool(8, jobs);
      expect(statuses.filter((s) => s === 200)).toHaveLength(500);
      expect(statuses.filter((s) => s === 403)).toHaveLength(1200);

      // /metrics: the kept series of the lobby are 16 tables and the summary at most, whatever it invented.
      await waitFor(
        async () =>
          (await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout.includes(
            'outside its allowFrom',
          ),
        20_000,
        'the refusals written',
      );
      // The strangers are counted apart, in three series (the daemon's figures follow within a status interval).
      const refusedSeries = async () =>
        (await get(page, '/metrics')).body.split('\n').filter((l) => l.startsWith('punchgate_push_refused_requests{'));
      await waitFor(
        async () =>
          (await refusedSeries()).includes('punchgate_push_refused_requests{reason="outside-allowfrom"} 200') &&
          (await refusedSeries()).includes('punchgate_push_refused_requests{reason="other-address"} 1000'),
        20_000,
        'the refused requests in /metrics',
      );
      expect(await refusedSeries()).toHaveLength(3);
      const metrics = (await get(page, '/metrics')).body;
      const keptSeries = metrics.split('\n').filter((l) => l.startsWith('punchgate_push_kept_uploads_total{'));
      expect(keptSeries.length).toBeLessThanOrEqual(17);
      expect(keptSeries.some((l) => l.includes('table="(other tables)"'))).toBe(true);
      expect(metrics.split('\n').length - metricsBefore.split('\n').length).toBeLessThan(120);
      // The alerts: one for the spoofed serial, 17 kept-upload alerts at most for the lobby.
      const statusJson = (await runPunchgate(['--config', stack.configPath, 'status', '--json'])).stdout;
      const status = JSON.parse(statusJson) as {
        alerts: string[];
        terminals: { name: string; push?: { kept: { table: string; held: number }[] } }[];
      };
      expect(status.alerts.filter((a) => a.includes(`SN=${FENCED}`))).toEqual([
        expect.stringMatching(/is pushing from 200 addresses outside its allowFrom \(200 requests refused/),
      ]);
      expect(status.alerts.filter((a) => a.startsWith('terminal lobby: ')).length).toBeLessThanOrEqual(17);
      expect(status.alerts.filter((a) => a.includes('was seen pushing from'))).toHaveLength(1);
      expect(statusJson.length).toBeLessThan(200_000);
      const served = await get(page, '/status.json');
      expect(served.status).toBe(200);
      expect(served.body.length).toBeLessThan(200_000);
      // The terminal's own kept upload is still held: the strangers kept nothing to evict it with.
      const kept = status.terminals.find((t) => t.name === 'lobby')!.push!.kept;
      expect(kept.find((k) => k.table === 'OWNTABLE')).toMatchObject({ held: 1 });
      const rssGrowth = rssMb(d) - rssBefore;
      console.log(`daemon RSS ${rssBefore.toFixed(0)} MB before, +${rssGrowth.toFixed(1)} MB after 1,700 requests`);
      expect(rssGrowth).toBeLessThan(40);

      // 70 addresses hold connections to the status server open (idle, or half a request) and come back when closed.
      const hold = (from: string, half: boolean) => {
        if (!holding) return;
        const u = new URL(page);
        const s = connect({ host: u.hostname, port: Number(u.port), localAddress: from });
        sockets.push(s);
        s.on('connect', () => {
          connected++;
          if (half) s.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
        });
        s.on('error', () => undefined);
        s.on('close', () => setTimeout(() => hold(from, half), 50));
      };
      for (let a = 0; a < 70; a++) for (let k = 0; k < 2; k++) hold(`127.0.3.${10 + a}`, k === 1);
      await waitFor(() => connected >= 140, 10_000, 'the 70 addresses holding connections');
      for (let round = 0; round < 5; round++) {
        for (const path of ['/readyz', '/metrics', '/', '/status.json']) {
          const r = await get(page, path);
          expect(r.status, path).toBeLessThan(500);
        }
        // A scraper elsewhere on the LAN is served too.
        expect((await get(page, '/metrics', '127.0.4.1')).status).toBe(200);
      }
    } finally {
      holding = false;
      for (const s of sockets) s.destroy();
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      await stack.stop();
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    }
  }, 240_000);
});
