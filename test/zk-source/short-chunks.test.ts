/**
 * A terminal that serves fewer bytes per DATA_RDY than the client asks for: its PREPARE_DATA
 * announces the bytes it sends (`u32 length, u32 maxPacketData`, A4), the client asks for the rest.
 * The simulator models such a terminal with `chunkSize`. Before, the client refused the first chunk
 * ("PREPARE_DATA announced 1000 bytes"), so no poll of such a terminal ever read its log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTerminalSim, type TerminalSim } from '../../src/sim/terminal/index.js';
import { ZkClient, ZkProtocolError } from '../../src/sources/zk/client/index.js';
import { CMD, decodePacket, encodePacket } from '../../src/sources/zk/protocol/index.js';
import { setup as fakeSetup, dataset40, makeAttendances } from '../zk-client/helpers.js';
import { pollTerminal } from '../../src/sources/zk/poll.js';
import { journalFixture, zkConfig } from './helpers.js';

const simRows = (sim: TerminalSim) =>
  sim
    .punches()
    .map((p) => `${p.userId}@${p.logTime}`)
    .sort();

describe('a terminal that serves shorter chunks than asked', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  for (const transport of ['tcp', 'udp'] as const) {
    it(`${transport}: every record is read, in order, and a poll journals them all`, async () => {
      const sim = await startTerminalSim({
        generate: { users: 20, punches: 700, startTime: '2026-01-05 08:00:00', seed: 3 },
        chunkSize: 4000, // 700 x 40 + 4 bytes: eight chunks, the last one short
        directThreshold: 0,
      });
      cleanups.push(() => sim.stop());
      const zk = new ZkClient({ host: '127.0.0.1', port: sim.port, transport, timeoutMs: 5000 });
      cleanups.push(() => zk.destroy());
      await zk.connect();
      const seen: number[] = [];
      const records = await zk.getAttendances((got) => seen.push(got));
      expect(records.map((r) => `${r.userId}@${r.logTime}`).sort()).toEqual(simRows(sim));
      expect(seen).toEqual([...seen].sort((a, b) => a - b));

      const fx = journalFixture();
      cleanups.push(fx.cleanup);
      const r = await pollTerminal(zkConfig(sim.port, { transport }), fx.deps);
      expect(r).toMatchObject({ ok: true, records: 700, added: 700 });
    });
  }

  it('a chunk that announces or carries more bytes than asked is refused, never misaligned', async () => {
    for (const grow of ['announce', 'carry'] as const) {
      const t = await fakeSetup({
        transport: 'tcp',
        attendance: dataset40(makeAttendances(60)),
        directLimit: 0,
        hook: (req, replies) => {
          if (req.command !== CMD.DATA_RDY) return replies;
          return replies.map((raw) => {
            const p = decodePacket(raw);
            if (grow === 'announce' && p.command === CMD.PREPARE_DATA) {
              const data = Buffer.from(p.data);
              data.writeUInt32LE(data.readUInt32LE(0) + 1, 0);
              return encodePacket({ ...p, data });
            }
            if (grow === 'carry' && p.command === CMD.DATA) {
              return encodePacket({ ...p, data: Buffer.concat([p.data, Buffer.from([0])]) });
            }
            return raw;
          });
        },
      });
      cleanups.push(t.cleanup);
      await t.zk.connect();
      await expect(t.zk.getAttendances(), grow).rejects.toBeInstanceOf(ZkProtocolError);
    }
  });
});
