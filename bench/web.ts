/**
 * Benchmarks of the status page server (issue 15), through the real `punchgate run`:
 * - web-idle: idle RSS with 10 terminals and the server on, scraped by a Prometheus every 15 s
 *   and viewed by an admin every 30 s; baseline: the same daemon with `status.listen: false`.
 *   Target: median <= 100 MB.
 * - metrics-serve: the time to serve /metrics with 200 terminals and a journal of 500,000
 *   delivered punches, one scrape after the other as Prometheus does; baseline: a bare
 *   node:http server answering the same bytes from memory. Target: p99 <= 20 ms.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';
import { parseConfig } from '../src/config/load.js';
import { Journal } from '../src/journal/index.js';
import { buildStatus } from '../src/status/index.js';
import { bigJournal } from './lib/big-journal.js';
import { daemonAvailable, startDaemonRig } from './lib/daemon.js';
import { freePort } from './lib/ports.js';
import { mb, RssSampler } from './lib/rss.js';
import { scaled } from './lib/scale.js';
import { BENCH_SITE, scratchDir } from './lib/setup.js';
import { fmt, log, type BenchRow } from './lib/table.js';
import { median, nowMs, percentile, sleep } from './lib/timing.js';

const IDLE_LIMIT_MB = 100;
const P99_LIMIT_MS = 20;

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** GET with a kept-alive connection; resolves with the status and the body. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function getOk(url: string): Promise<string> {
  const r = await get(url);
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}: ${r.body.slice(0, 200)}`);
  return r.body;
}

/** Latencies (ms) of `n` GETs one after the other, after `warm` unmeasured ones. */
async function latencies(url: string, n: number, warm = 20): Promise<number[]> {
  for (let i = 0; i < warm; i++) await getOk(url);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = nowMs();
    await getOk(url);
    out.push(nowMs() - t0);
  }
  return out;
}

async function idleRun(listen: boolean, windowMs: number): Promise<{ median: number; peak: number; scrapes: number }> {
  const port = await freePort();
  const rig = await startDaemonRig(
    {
      terminals: 10,
      punchesPerTerminal: 1000,
      usersPerTerminal: 50,
      config: { status: { listen: listen ? `127.0.0.1:${port}` : false } },
    },
    180_000,
  );
  try {
    await sleep(2000);
    const base = `http://127.0.0.1:${port}/`;
    let scrapes = 0;
    let stop = false;
    // Prometheus every 15 s, an admin's page view every 30 s.
    const visitor = (async () => {
      for (let t = 0; !stop && listen; t += 15_000) {
        await getOk(`${base}metrics`);
        if (t % 30_000 === 0) await getOk(base);
        scrapes++;
        const until = Date.now() + 15_000;
        while (!stop && Date.now() < until) await sleep(200);
      }
    })();
    const sampler = new RssSampler(rig.daemon.pid!, 100).start();
    await sleep(windowMs);
    const rss = sampler.stop();
    stop = true;
    await visitor;
    if (rig.daemon.exitCode !== null) throw new Error(`punchgate run exited: ${rig.stderrTail().slice(-800)}`);
    return { median: rss.median, peak: rss.peak, scrapes };
  } finally {
    await rig.stop();
  }
}

export async function benchWebIdle(): Promise<BenchRow[]> {
  if (!daemonAvailable()) {
    log('web-idle: skipped: this build has no `punchgate run`');
    return [];
  }
  const windowMs = scaled(75_000, { min: 20_000, step: 1000 });
  const off = await idleRun(false, windowMs);
  log(`web-idle: status.listen false: RSS median ${fmt(mb(off.median), 1)} MB, peak ${fmt(mb(off.peak), 1)} MB`);
  const on = await idleRun(true, windowMs);
  log(
    `web-idle: server on: RSS median ${fmt(mb(on.median), 1)} MB, peak ${fmt(mb(on.peak), 1)} MB ` +
      `(${on.scrapes} scrapes of /metrics in ${fmt(windowMs / 1000)} s, the page every other one)`,
  );
  return [
    {
      bench: 'web-idle',
      metric: 'idle RSS, 10 terminals, server on (median)',
      unit: 'MB',
      ours: mb(on.median),
      baseline: mb(off.median),
      ratio: on.median / off.median,
      target: `<= ${IDLE_LIMIT_MB} MB`,
      pass: mb(on.median) <= IDLE_LIMIT_MB,
      note: `baseline: the same daemon with status.listen: false; scraped every 15 s over ${fmt(windowMs / 1000)} s`,
    },
    { bench: 'web-idle', metric: 'idle RSS, server on (peak)', unit: 'MB', ours: mb(on.peak), target: 'info' },
  ];
}

/** A bare node:http server answering `body` from memory: the floor of serving those bytes. */
async function staticServer(body: string, dir: string): Promise<{ url: string; stop: () => void }> {
  const file = join(dir, 'metrics.txt');
  writeFileSync(file, body);
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const b = require('fs').readFileSync(${JSON.stringify(file)});
       const s = require('http').createServer((q, r) => { r.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': b.length }); r.end(b); });
       s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<string>((resolve) =>
    child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/metrics`, stop: () => child.kill('SIGKILL') };
}

export async function benchMetricsServe(): Promise<BenchRow[]> {
  if (!daemonAvailable()) {
    log('metrics-serve: skipped: this build has no `punchgate run`');
    return [];
  }
  const terminals = 200;
  const filled = scaled(1_000_000, { step: 10_000 });
  const n = scaled(2000, { min: 200, step: 100 });
  const port = await freePort();
  let journalPath = '';
  const fillStarted = nowMs();
  const rig = await startDaemonRig(
    {
      terminals,
      punchesPerTerminal: 20,
      usersPerTerminal: 10,
      config: { status: { listen: `127.0.0.1:${port}` } },
      beforeStart: (path) => {
        journalPath = path;
        bigJournal(path, filled, terminals);
        log(
          `metrics-serve: journal filled with ${fmt(filled)} delivered punches in ${fmt((nowMs() - fillStarted) / 1000, 1)} s`,
        );
      },
    },
    300_000,
  );
  const scratch = scratchDir('metrics');
  let ours: number[];
  let base: number[];
  let body: string;
  let buildMs: number;
  try {
    const url = `http://127.0.0.1:${port}/metrics`;
    body = await getOk(url);
    const up = body.split('\n').filter((l) => l.startsWith('punchgate_terminal_up{')).length;
    if (up !== terminals) throw new Error(`/metrics shows ${up} terminals, expected ${terminals}`);
    ours = await latencies(url, n);
    const floor = await staticServer(body, scratch.dir);
    try {
      base = await latencies(floor.url, n);
    } finally {
      floor.stop();
    }
    // The status report behind the queue figures, built by the status log every minute.
    const configFile = join(journalPath, '..', 'punchgate.yaml');
    const config = parseConfig(parse(readFileSync(configFile, 'utf8')), join(journalPath, '..'));
    const reader = Journal.open({ path: journalPath, site: BENCH_SITE, mode: 'shared' });
    try {
      const t0 = nowMs();
      buildStatus(reader, config, Date.now());
      buildMs = nowMs() - t0;
    } finally {
      reader.close();
    }
  } finally {
    scratch.remove();
    await rig.stop();
  }
  const series = body.split('\n').filter((l) => l && !l.startsWith('#')).length;
  const slowest = [...ours].sort((a, b) => b - a).slice(0, 5);
  log(`metrics-serve: slowest scrapes: ${slowest.map((x) => fmt(x, 1)).join(', ')} ms`);
  log(
    `metrics-serve: ${fmt(n)} scrapes: p50 ${fmt(median(ours), 2)} ms, p99 ${fmt(percentile(ours, 99), 2)} ms, ` +
      `max ${fmt(Math.max(...ours), 2)} ms (${fmt(body.length / 1024, 1)} KB, ${fmt(series)} series); bare server p99 ` +
      `${fmt(percentile(base, 99), 2)} ms; one status report over the journal: ${fmt(buildMs, 0)} ms`,
  );
  return [
    {
      bench: 'metrics-serve',
      metric: `/metrics, ${terminals} terminals (p99)`,
      unit: 'ms',
      ours: percentile(ours, 99),
      baseline: percentile(base, 99),
      ratio: percentile(ours, 99) / percentile(base, 99),
      ratioAs: 'times',
      target: `<= ${P99_LIMIT_MS} ms`,
      pass: percentile(ours, 99) <= P99_LIMIT_MS,
      note:
        `${fmt(n)} scrapes one after the other, journal of ${fmt(filled)} delivered punches; baseline: a bare ` +
        'node:http server sending the same bytes from memory',
    },
    {
      bench: 'metrics-serve',
      metric: '/metrics (p50)',
      unit: 'ms',
      ours: median(ours),
      baseline: median(base),
      target: 'info',
    },
    { bench: 'metrics-serve', metric: '/metrics (max)', unit: 'ms', ours: Math.max(...ours), target: 'info' },
    {
      bench: 'metrics-serve',
      metric: 'status report build (status log, each minute)',
      unit: 'ms',
      ours: buildMs,
      target: 'info',
      note: 'the queue figures of /metrics come from it; /metrics builds one only when the last is older than the status interval',
    },
  ];
}
