/**
 * `dahua` (issue 33): read and journal 100,000 access records from the Dahua simulator with the
 * real poll (DahuaPoller: Digest, identity and clock, recordFinder pages of 500 from the
 * RecNo/CreateTime cursor, the journal written as it reads), next to the bare page loop in the
 * same run: the same searches on one keep-alive connection with the same Digest answer, each page
 * split into its lines and nothing else. The simulator runs in a child process; both sides
 * alternate over 3 rounds, a fresh journal each round, the median is reported; the RSS of this
 * process is sampled during our polls (the peak, against a bound).
 */
import { readRounds } from './lib/read-rounds.js';
import http from 'node:http';
import { Journal } from '../src/journal/index.js';
import { DahuaClient, DahuaPoller } from '../src/sources/dahua/index.js';
import { sourceDepsFor } from '../src/sources/deps.js';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from '../src/sources/http-digest.js';
import { silentLogger } from '../src/util/logger.js';
import type { DahuaChildArgs, DahuaChildReady } from './child-dahua.js';
import { BenchChild } from './lib/child.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { nowMs, rate } from './lib/timing.js';

const ROUNDS = 3;
const PASSWORD = 'bench-dahua-1';
const PAGE = 500;
const MIN_RATIO = 0.5;
const MAX_RSS_MB = 200;

interface Run {
  ms: number;
  requests: number;
  records: number;
}

function get(agent: http.Agent, port: number, path: string, auth?: string) {
  return new Promise<{ status: number; header: string | string[] | undefined; text: string }>((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path, agent, headers: auth ? { authorization: auth } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            header: res.headers['www-authenticate'],
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
  });
}

/** The baseline: page after page from the last record's second, split into lines, nothing more. */
async function bareLoop(port: number): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let challenge: DigestChallenge | undefined;
  let nc = 0;
  let requests = 0;
  let records = 0;
  const seen = new Set<string>();
  const t0 = nowMs();
  try {
    for (let start = 0; ;) {
      const path = `/cgi-bin/recordFinder.cgi?action=find&name=AccessControlCardRec&StartTime=${start}&EndTime=2145916799&count=${PAGE}`;
      const auth = challenge
        ? digestAuthorization(challenge, { username: 'admin', password: PASSWORD, method: 'GET', uri: path, nc: ++nc })
        : undefined;
      const res = await get(agent, port, path, auth);
      requests++;
      if (res.status === 401) {
        challenge = parseDigestChallenge(res.header);
        nc = 0;
        continue;
      }
      let last = start;
      let rows = 0;
      let rec = '';
      for (const line of res.text.split('\r\n')) {
        const m = /^records\[\d+\]\.(RecNo|CreateTime)=(\d+)$/.exec(line);
        if (!m) continue;
        if (m[1] === 'RecNo') rec = m[2]!;
        else {
          last = Number(m[2]);
          rows++;
          if (!seen.has(rec)) {
            seen.add(rec);
            records++;
          }
        }
      }
      if (rows === 0 || last <= start) break;
      start = last;
    }
    return { ms: nowMs() - t0, requests, records };
  } finally {
    agent.destroy();
  }
}

/** Ours: one real poll of a fresh journal. */
async function ourPoll(port: number, dir: string, round: number): Promise<Run & { journalled: number }> {
  const journal = Journal.open({ path: `${dir}/journal-${round}.db`, site: 'bench', mode: 'owner' });
  let requests = 0;
  try {
    const deps = sourceDepsFor(journal, silentLogger(), { now: Date.now });
    const poller = new DahuaPoller(
      {
        name: 'front-door',
        kind: 'dahua',
        host: '127.0.0.1',
        port,
        tls: false,
        username: 'admin',
        schedule: '* * * * *',
        realtime: false,
        timeoutMs: 10_000,
        pageSize: PAGE,
        recordClock: 'local',
        userApi: 'auto',
        skewThresholdSeconds: 60,
        enabled: true,
        timezone: 'UTC',
      },
      deps,
      (c, password) =>
        new DahuaClient({
          host: c.host,
          port: c.port!,
          tls: false,
          username: c.username,
          password,
          timeoutMs: c.timeoutMs,
          onRequest: () => requests++,
        }),
      { PUNCHGATE_TERMINAL_FRONT_DOOR_PASSWORD: PASSWORD },
    );
    const t0 = nowMs();
    const r = await poller.poll();
    const ms = nowMs() - t0;
    poller.destroy();
    if (!r.ok) throw new Error(`our poll failed: ${r.error}`);
    return { ms, requests, records: r.rows, journalled: journal.counts().pending };
  } finally {
    journal.close();
  }
}

export async function benchDahua(): Promise<BenchRow[]> {
  const records = scaled(100_000, { step: 1000 });
  log(
    `dahua: ${fmt(records)} access records on the simulator (child process), pages of ${PAGE}, ${ROUNDS} rounds, median`,
  );
  const sim = await BenchChild.start<DahuaChildReady>('child-dahua', {
    args: [JSON.stringify({ records, password: PASSWORD } satisfies DahuaChildArgs)],
  });
  const scratch = scratchDir('dahua');
  let result;
  try {
    const port = sim.ready.port;
    result = await readRounds({
      rounds: ROUNDS,
      bare: () => bareLoop(port),
      ours: (round) => ourPoll(port, scratch.dir, round),
      checkBare: (b) => {
        if (b.records !== records) throw new Error(`the bare loop read ${b.records} of ${records} records`);
      },
      checkOurs: (o) => {
        if (o.journalled !== sim.ready.accepted)
          throw new Error(`our poll journalled ${o.journalled} of ${sim.ready.accepted} accepted records`);
      },
    });
  } finally {
    scratch.remove();
    await sim.stop();
  }
  const { ours: o, bare: b, peakRss: peak } = result;
  return [
    ratioRow({
      bench: 'dahua',
      metric: `read + journal ${fmt(records)} records`,
      unit: 'records/s',
      ours: rate(records, o.ms),
      baseline: rate(records, b.ms),
      minRatio: MIN_RATIO,
      note: `median ours ${fmt(o.ms / 1000, 2)} s in ${fmt(o.requests)} requests (identity, clock, record count, then the pages; the journal written as it reads), bare page loop ${fmt(b.ms / 1000, 2)} s in ${fmt(b.requests)} requests`,
    }),
    {
      bench: 'dahua',
      metric: 'peak RSS of the reading process during our polls',
      unit: 'MB',
      ours: peak / 2 ** 20,
      target: `<= ${MAX_RSS_MB} MB`,
      pass: peak / 2 ** 20 <= MAX_RSS_MB,
    },
  ];
}
