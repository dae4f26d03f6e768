/**
 * `frappe-sink` (issue 32): punches per second delivered by the Frappe sender (one call per punch,
 * `concurrency` 4 in flight) to `punchgate sim frappe` in its own process, next to a bare loop of
 * the same calls on 4 connections in the same run (nothing classified), and next to the sender
 * with one call at a time (the Frappe sync tool's way). The simulator answers after a few
 * milliseconds (BENCH_FRAPPE_LATENCY_MS, default 5), as a site's insert takes at least that: on
 * loopback with no latency the figure would measure this machine's two shared cores, not the sink.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { checkinUrl } from '../src/sinks/frappe/options.js';
import { FrappeSender } from '../src/sinks/frappe/sender.js';
import type { SinkPunch } from '../src/sinks/types.js';
import { scaled } from './lib/scale.js';
import { ratioRow, type BenchRow } from './lib/table.js';
import { nowMs, rate } from './lib/timing.js';

const KEY = 'benchkey0001';
const SECRET = 'benchsecret0001';
const TOKEN = `${KEY}:${SECRET}`;
const EMPLOYEES = 500;
const BATCH = 200;

async function startSim(dir: string, latencyMs: number): Promise<{ url: string; child: ChildProcess }> {
  const csv = join(dir, 'employees.csv');
  const rows = Array.from({ length: EMPLOYEES }, (_, i) => `${1000 + i},P${i}`);
  writeFileSync(csv, `attendance_device_id,employee_name\n${rows.join('\n')}\n`);
  const child = spawn(
    process.execPath,
    [
      'dist/punchgate.js',
      'sim',
      'frappe',
      '--port',
      '0',
      '--key',
      TOKEN,
      '--employees',
      csv,
      '--latency',
      String(latencyMs),
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += String(d);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`sim frappe exited with ${code}`)));
  });
  return { url, child };
}

/** n punches of distinct (employee, time): none is a duplicate of another run's (`day` differs). */
function punches(n: number, day: number): SinkPunch[] {
  return Array.from({ length: n }, (_, i) => {
    const s = Math.floor(i / EMPLOYEES);
    const time = `2026-10-${String(day).padStart(2, '0')} ${String(Math.floor(s / 3600) % 24).padStart(2, '0')}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
    return {
      devicelogId: `b-${day}-${i}`,
      biometricCode: String(1000 + (i % EMPLOYEES)),
      logTime: time,
      terminal: 'gate',
      device: '',
      timezone: 'UTC',
    };
  });
}

async function viaSender(url: string, list: SinkPunch[], concurrency: number): Promise<number> {
  const sender = new FrappeSender(
    { baseUrl: url, method: 'hrms', employeeFieldname: 'attendance_device_id', concurrency, timeoutMs: 30_000 },
    { env: {} },
  );
  try {
    const t0 = nowMs();
    let delivered = 0;
    for (let i = 0; i < list.length; i += BATCH) {
      const a = await sender.send(list.slice(i, i + BATCH), { token: TOKEN });
      if (a.kind !== 'answered') throw new Error(`batch failed: ${a.kind}`);
      delivered += a.results.filter((r) => r.status).length;
    }
    if (delivered !== list.length) throw new Error(`${delivered} of ${list.length} delivered`);
    return rate(delivered, nowMs() - t0);
  } finally {
    await sender.close();
  }
}

/** The same calls, 4 loops on 4 connections, the answer read and dropped. */
async function bareLoop(url: string, list: SinkPunch[]): Promise<number> {
  const target = new URL(checkinUrl({ baseUrl: url, method: 'hrms' }));
  const pool = new Pool(target.origin, { connections: 4 });
  let next = 0;
  const t0 = nowMs();
  const loop = async () => {
    while (next < list.length) {
      const p = list[next++]!;
      const res = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          employee_field_value: p.biometricCode,
          timestamp: p.logTime,
          device_id: p.terminal,
          employee_fieldname: 'attendance_device_id',
        }),
      });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`bare loop: HTTP ${res.statusCode}`);
    }
  };
  await Promise.all([loop(), loop(), loop(), loop()]);
  const r = rate(list.length, nowMs() - t0);
  await pool.close();
  return r;
}

export async function benchFrappeSink(): Promise<BenchRow[]> {
  const latency = Number(process.env.BENCH_FRAPPE_LATENCY_MS ?? 5);
  const n = scaled(4000, { min: 400, step: BATCH });
  const dir = mkdtempSync(join(tmpdir(), 'pg-bench-frappe-'));
  const { url, child } = await startSim(dir, latency);
  try {
    await viaSender(url, punches(BATCH, 1), 4); // warm-up
    // The bare loop before and after the sender, the faster one kept: the order never favours us.
    const bareBefore = await bareLoop(url, punches(n, 2));
    const four = await viaSender(url, punches(n, 3), 4);
    const bare = Math.max(bareBefore, await bareLoop(url, punches(n, 5)));
    const one = await viaSender(url, punches(Math.max(BATCH, n / 4), 4), 1);
    const note = `${n} punches, simulator answers after ${latency} ms`;
    return [
      ratioRow({
        bench: 'frappe-sink',
        metric: 'sender, 4 in flight vs bare loop',
        unit: 'punches/s',
        ours: four,
        baseline: bare,
        minRatio: 0.5,
        note,
      }),
      ratioRow({
        bench: 'frappe-sink',
        metric: '4 in flight vs 1 at a time',
        unit: 'punches/s',
        ours: four,
        baseline: one,
        minRatio: 3,
        ratioAs: 'times',
        note,
      }),
    ];
  } finally {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
