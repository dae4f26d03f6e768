/**
 * `biotime` (issue 33): read and journal 100,000 transactions from the BioTime server simulator
 * with the real poll (BiotimePoller: a JWT, pages of 1,000 by id, each page journalled with the
 * cursor), next to the bare page loop in the same run: the same token, the same pages by id on
 * one undici connection, each page parsed and nothing else. The simulator runs in a child
 * process; both sides alternate over 3 rounds, a fresh journal each round, the median is
 * reported; the RSS of this process while our poll runs is reported against a bound.
 */
import { readRounds } from './lib/read-rounds.js';
import { Client } from 'undici';
import type { BiotimeTerminalConfig } from '../src/config/terminals.js';
import { Journal } from '../src/journal/index.js';
import { sourceDepsFor } from '../src/sources/deps.js';
import { BiotimePoller, openClient } from '../src/sources/biotime/index.js';
import { silentLogger } from '../src/util/logger.js';
import type { BiotimeChildArgs, BiotimeChildReady } from './child-biotime.js';
import { BenchChild } from './lib/child.js';
import { mb } from './lib/rss.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { nowMs, rate } from './lib/timing.js';

const ROUNDS = 3;
const PASSWORD = 'bench-passw0rd';
const PAGE = 1000;
const MIN_RATIO = 0.5;
const RSS_BOUND_MB = 200;

interface Run {
  ms: number;
  requests: number;
  rows: number;
}

/** The baseline: a token, then the pages by id on one connection; parse, advance, nothing more. */
async function bareLoop(url: string): Promise<Run> {
  const client = new Client(url, { pipelining: 1 });
  let requests = 0;
  let rows = 0;
  const t0 = nowMs();
  try {
    const auth = await client.request({
      method: 'POST',
      path: '/jwt-api-token-auth/',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    requests++;
    const { token } = (await auth.body.json()) as { token: string };
    for (let after = 0; ;) {
      const res = await client.request({
        method: 'GET',
        path: `/iclock/api/transactions/?page_size=${PAGE}&ordering=id&id__gt=${after}`,
        headers: { authorization: `JWT ${token}` },
      });
      requests++;
      const page = JSON.parse(await res.body.text()) as { data: { id: number }[]; next: string | null };
      rows += page.data.length;
      if (page.data.length === 0) break;
      after = page.data.at(-1)!.id;
      if (page.data.length < PAGE && !page.next) break;
    }
    return { ms: nowMs() - t0, requests, rows };
  } finally {
    await client.close();
  }
}

/** Ours: one real poll of a fresh journal. */
async function ourPoll(url: string, dir: string, round: number): Promise<Run & { journalled: number }> {
  const journal = Journal.open({ path: `${dir}/journal-${round}.db`, site: 'bench', mode: 'owner' });
  let requests = 0;
  try {
    const deps = sourceDepsFor(journal, silentLogger(), { now: Date.now });
    const cfg: BiotimeTerminalConfig = {
      name: 'hq',
      kind: 'biotime',
      baseUrl: url,
      username: 'admin',
      auth: 'auto',
      pageSize: PAGE,
      schedule: '* * * * *',
      timeoutMs: 10_000,
      overlapMinutes: 1440,
      lagAlertMinutes: 60,
      enabled: true,
      timezone: 'UTC',
    };
    const poller = new BiotimePoller(
      cfg,
      deps,
      (c, password) =>
        openClient({
          baseUrl: c.baseUrl,
          username: c.username,
          password,
          auth: c.auth,
          timeoutMs: c.timeoutMs,
          onRequest: () => requests++,
        }),
      { PUNCHGATE_TERMINAL_HQ_PASSWORD: PASSWORD },
    );
    const t0 = nowMs();
    const r = await poller.poll();
    const ms = nowMs() - t0;
    poller.destroy();
    if (!r.ok) throw new Error(`our poll failed: ${r.error}`);
    return { ms, requests, rows: r.rows, journalled: journal.counts().pending };
  } finally {
    journal.close();
  }
}

export async function benchBiotime(): Promise<BenchRow[]> {
  const n = scaled(100_000, { step: 1000 });
  log(
    `biotime: ${fmt(n)} transactions on the simulator (child process), pages of ${PAGE} by id, ${ROUNDS} rounds, median`,
  );
  const sim = await BenchChild.start<BiotimeChildReady>('child-biotime', {
    args: [JSON.stringify({ transactions: n, password: PASSWORD } satisfies BiotimeChildArgs)],
  });
  const scratch = scratchDir('biotime');
  let result;
  try {
    const url = sim.ready.url;
    result = await readRounds({
      rounds: ROUNDS,
      bare: () => bareLoop(url),
      ours: (round) => ourPoll(url, scratch.dir, round),
      checkBare: (b) => {
        if (b.rows !== n) throw new Error(`the bare loop read ${b.rows} of ${n} transactions`);
      },
      checkOurs: (o) => {
        if (o.journalled !== n) throw new Error(`our poll journalled ${o.journalled} of ${n} transactions`);
      },
    });
  } finally {
    scratch.remove();
    await sim.stop();
  }
  const { ours: o, bare: b, peakRss } = result;
  return [
    ratioRow({
      bench: 'biotime',
      metric: `read + journal ${fmt(n)} transactions`,
      unit: 'rows/s',
      ours: rate(n, o.ms),
      baseline: rate(n, b.ms),
      minRatio: MIN_RATIO,
      note: `median ours ${fmt(o.ms / 1000, 2)} s in ${fmt(o.requests)} requests (token, pages by id, each journalled with the cursor), bare page loop ${fmt(b.ms / 1000, 2)} s in ${fmt(b.requests)} requests`,
    }),
    {
      bench: 'biotime',
      metric: 'peak RSS of the reading process',
      unit: 'MB',
      ours: Math.round(mb(peakRss)),
      target: `<= ${RSS_BOUND_MB} MB`,
      pass: mb(peakRss) <= RSS_BOUND_MB,
      note: 'sampled every 100 ms while our poll ran (pages of 1,000 are read and journalled one at a time)',
    },
  ];
}
