import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sendClaimed, type SendTally } from '../../src/delivery/send-claimed.js';
import { emptyCounters } from '../../src/delivery/counters.js';
import type { AttendanceAnswer } from '../../src/hrms/answer.js';
import type { DeliveryQueue, OutboundPunch } from '../../src/journal/types.js';
import { createLogger } from '../../src/util/logger.js';

/** A journal that can no longer be written, as better-sqlite3 throws it. */
const corrupt = () => Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });

const punch = (id: number): OutboundPunch => ({
  id,
  devicelogId: `d${id}`,
  biometricCode: '1001',
  logTime: '2026-10-01 08:00:00',
  terminal: 'gate',
  device: '',
  punchState: null,
  attempts: 0,
  previousState: 'pending',
});

function rig(answer: AttendanceAnswer) {
  const lines: Array<{ level: number; msg: string; err?: unknown }> = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as (typeof lines)[0]);
      cb();
    },
  });
  const queue = {
    settle: () => {
      throw corrupt();
    },
    release: () => {
      throw corrupt();
    },
  } as unknown as DeliveryQueue;
  const tally: SendTally = {
    delivered: 0,
    duplicates: 0,
    rejected: 0,
    unknown: 0,
    requests: 0,
    released: 0,
    rejectedIds: [],
  };
  const run = () =>
    sendClaimed(
      [punch(1), punch(2)],
      () => 'token',
      undefined,
      {
        queue,
        sender: { send: () => Promise.resolve(answer) },
        duplicatePatterns: [],
        stats: emptyCounters(),
        logger: createLogger({ level: 'debug', destination: dest }),
        toSink: (p) => p as never,
      },
      tally,
    );
  return { run, errorLines: () => lines.filter((l) => l.level >= 50) };
}

describe('a batch whose journal turns out damaged or full (found by a resource trial)', () => {
  it('throws the settle error with no error line (and stack) of its own: the daemon says it once, fatally', async () => {
    const r = rig({
      kind: 'answered',
      httpStatus: 200,
      overall: true,
      results: [
        { status: true, message: 'ok' },
        { status: true, message: 'ok' },
      ],
    });
    await expect(r.run()).rejects.toMatchObject({ code: 'SQLITE_CORRUPT' });
    expect(r.errorLines()).toEqual([]);
  });

  it('a request that failed and a release the journal refuses: the fatal error is thrown now, not logged and dropped', async () => {
    const r = rig({ kind: 'transient', message: 'connection refused', afterSending: false });
    await expect(r.run()).rejects.toMatchObject({ code: 'SQLITE_CORRUPT' });
    expect(r.errorLines()).toEqual([]);
  });
});
