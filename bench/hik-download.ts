/**
 * `hik-download` (issue 17): read and journal 100,000 events from the Hikvision simulator with
 * the real poll (HikvisionPoller: Digest, pages of at most 30 advanced by numOfMatches, the
 * cursor committed with the punches), next to the bare page-fetch loop in the same run: the
 * same search on one undici connection with the same Digest answer, each page parsed and
 * nothing else. The simulator runs in a child process; both sides alternate over 3 rounds, a
 * fresh journal each round, and the median is reported with its time and request count.
 */
import { readRounds } from './lib/read-rounds.js';
import { Client } from 'undici';
import { Journal } from '../src/journal/index.js';
import { sourceDepsFor } from '../src/sources/deps.js';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from '../src/sources/http-digest.js';
import { HikvisionClient, HikvisionPoller } from '../src/sources/hikvision/index.js';
import { DEFAULT_HIKVISION_MINORS } from '../src/config/terminals.js';
import { silentLogger } from '../src/util/logger.js';
import type { HikvisionChildArgs, HikvisionChildReady } from './child-hikvision.js';
import { BenchChild } from './lib/child.js';
import { scaled } from './lib/scale.js';
import { scratchDir } from './lib/setup.js';
import { fmt, log, ratioRow, type BenchRow } from './lib/table.js';
import { nowMs, rate } from './lib/timing.js';

const ROUNDS = 3;
const PASSWORD = 'bench-passw0rd';
const PATH = '/ISAPI/AccessControl/AcsEvent?format=json';
const MIN_RATIO = 0.5;

interface Run {
  ms: number;
  requests: number;
  events: number;
}

/** The baseline: the same search, page after page, on one connection; parse, advance, nothing more. */
async function bareLoop(url: string): Promise<Run> {
  const client = new Client(url, { pipelining: 1 });
  let challenge: DigestChallenge | undefined;
  let nc = 0;
  let requests = 0;
  let events = 0;
  const t0 = nowMs();
  try {
    for (let position = 0; ;) {
      const body = JSON.stringify({
        AcsEventCond: {
          searchID: 'bare',
          searchResultPosition: position,
          maxResults: 30,
          major: 5,
          minor: 0,
          beginSerialNo: 1,
          endSerialNo: 3_000_000_000,
        },
      });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (challenge) {
        headers.authorization = digestAuthorization(challenge, {
          username: 'admin',
          password: PASSWORD,
          method: 'POST',
          uri: PATH,
          nc: ++nc,
        });
      }
      const res = await client.request({ method: 'POST', path: PATH, headers, body });
      requests++;
      const text = await res.body.text();
      if (res.statusCode === 401) {
        challenge = parseDigestChallenge(res.headers['www-authenticate'] as string);
        nc = 0;
        continue;
      }
      const page = (
        JSON.parse(text) as { AcsEvent: { responseStatusStrg: string; numOfMatches: number; InfoList?: unknown[] } }
      ).AcsEvent;
      events += page.InfoList?.length ?? 0;
      if (page.responseStatusStrg !== 'MORE') break;
      position += page.numOfMatches;
    }
    return { ms: nowMs() - t0, requests, events };
  } finally {
    await client.close();
  }
}

/** Ours: one real poll of a fresh journal (identity, clock, user count, then the events by serial number). */
async function ourPoll(url: string, dir: string, round: number): Promise<Run & { journalled: number }> {
  const journal = Journal.open({ path: `${dir}/journal-${round}.db`, site: 'bench', mode: 'owner' });
  let requests = 0;
  try {
    const deps = sourceDepsFor(journal, silentLogger(), { now: Date.now });
    const cfg = {
      name: 'reception',
      kind: 'hikvision' as const,
      url,
      username: 'admin',
      schedule: '* * * * *',
      minors: [...DEFAULT_HIKVISION_MINORS],
      realtime: false,
      timeoutMs: 10_000,
      syncClock: false,
      skewThresholdSeconds: 60,
      overlapMinutes: 10,
      enabled: true,
    };
    const poller = new HikvisionPoller(
      cfg,
      deps,
      (c, password) =>
        HikvisionClient.open({
          url: c.url,
          username: c.username,
          password,
          timeoutMs: c.timeoutMs,
          onRequest: () => requests++,
        }),
      { PUNCHGATE_TERMINAL_RECEPTION_PASSWORD: PASSWORD },
    );
    const t0 = nowMs();
    const r = await poller.poll();
    const ms = nowMs() - t0;
    await poller.close();
    if (!r.ok) throw new Error(`our poll failed: ${r.error}`);
    return { ms, requests, events: r.rows, journalled: journal.counts().pending };
  } finally {
    journal.close();
  }
}

export async function benchHikDownload(): Promise<BenchRow[]> {
  const passes = scaled(100_000, { step: 1000 });
  log(
    `hik-download: ${fmt(passes)} events (authentication passes) on the simulator (child process), pages of 30, ${ROUNDS} rounds, median`,
  );
  const sim = await BenchChild.start<HikvisionChildReady>('child-hikvision', {
    args: [JSON.stringify({ passes, password: PASSWORD } satisfies HikvisionChildArgs)],
  });
  const scratch = scratchDir('hik');
  let result;
  try {
    const url = sim.ready.url;
    result = await readRounds({
      rounds: ROUNDS,
      bare: () => bareLoop(url),
      ours: (round) => ourPoll(url, scratch.dir, round),
      checkBare: (b) => {
        if (b.events !== passes) throw new Error(`the bare loop read ${b.events} of ${passes} events`);
      },
      checkOurs: (o) => {
        if (o.journalled !== passes) throw new Error(`our poll journalled ${o.journalled} of ${passes} events`);
      },
    });
  } finally {
    scratch.remove();
    await sim.stop();
  }
  const { ours: o, bare: b } = result;
  return [
    ratioRow({
      bench: 'hik-download',
      metric: `read + journal ${fmt(passes)} events`,
      unit: 'events/s',
      ours: rate(passes, o.ms),
      baseline: rate(passes, b.ms),
      minRatio: MIN_RATIO,
      note: `median ours ${fmt(o.ms / 1000, 2)} s in ${fmt(o.requests)} requests (poll: identity, clock, users, then the pages; the journal written as it reads), bare page loop ${fmt(b.ms / 1000, 2)} s in ${fmt(b.requests)} requests`,
    }),
  ];
}
