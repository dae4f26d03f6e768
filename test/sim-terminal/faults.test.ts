import { describe, expect, it } from 'vitest';
import { CMD } from '../../src/sources/zk/protocol/constants.js';
import { decodeAttendances } from '../../src/sources/zk/protocol/records.js';
import { useTerminalSim } from './harness.js';
import { dataRdy, waitFor, WRRQ_ATTLOG, type RawTcp } from './raw-client.js';

const h = useTerminalSim();
const { start, tcp } = h;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** 300 punches: a 12 004-byte attendance dataset, chunked (above the 1 KB direct threshold). */
const PUNCHES_300 = { generate: { users: 5, punches: 300 } };
const SIZE_300 = 4 + 300 * 40;

/** Connects, asks for the attendance dataset and one chunk; returns the packets from PREPARE_DATA on. */
async function downloadChunk(c: RawTcp, expectPackets: number) {
  await c.connect();
  const stat = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
  expect(stat.command).toBe(CMD.ACK_OK);
  const from = c.packets.length;
  const readsFrom = c.reads.length;
  c.send(CMD.DATA_RDY, dataRdy(0, 65472));
  const packets = (await c.waitPackets(from + expectPackets)).slice(from);
  await pause(50);
  const reads = c.reads
    .slice(readsFrom)
    .filter((r) => r.packets.length > 0)
    .map((r) => r.packets.map((p) => p.command));
  return { packets, reads };
}

describe('reply faults', () => {
  it('dropReplyTo swallows the reply but the command still takes effect', async () => {
    await start({ ...PUNCHES_300, faults: { dropReplyTo: [CMD.DATA_WRRQ] } });
    const c = await tcp();
    await c.connect();
    const from = c.packets.length;
    c.send(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    await pause(200);
    expect(c.packets.length).toBe(from);
    const t = await c.request(CMD.GET_TIME);
    expect([t.command, t.replyId]).toEqual([CMD.ACK_OK, c.replyId]);
    // The dataset was prepared: a DATA_RDY is served.
    const prep = c.packets.length;
    c.send(CMD.DATA_RDY, dataRdy(0, 100));
    expect((await c.waitPackets(prep + 3)).slice(prep).map((p) => p.command)).toEqual([
      CMD.PREPARE_DATA,
      CMD.DATA,
      CMD.ACK_OK,
    ]);
    // Still dropped the next time.
    const n = c.packets.length;
    c.send(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    await pause(150);
    expect(c.packets.length).toBe(n);
  });

  it('dropReplyOnce drops only the first matching reply; setFaults re-arms it', async () => {
    await start({ faults: { dropReplyTo: [CMD.GET_TIME], dropReplyOnce: true } });
    const c = await tcp();
    await c.connect();
    const from = c.packets.length;
    c.send(CMD.GET_TIME);
    const second = c.send(CMD.GET_TIME);
    await c.waitPackets(from + 1);
    await pause(100);
    expect(c.since(from).map((p) => p.replyId)).toEqual([second]);
    h.sim.setFaults({ dropReplyTo: [CMD.GET_TIME] });
    const n = c.packets.length;
    c.send(CMD.GET_TIME);
    c.send(CMD.GET_TIME);
    await c.waitPackets(n + 1);
    await pause(100);
    expect(c.packets.length).toBe(n + 1);
    h.sim.setFaults({ dropReplyTo: [] });
    expect((await c.request(CMD.GET_TIME)).command).toBe(CMD.ACK_OK);
  });

  it('errorOnDataWrrq answers DATA_WRRQ with ACK_ERROR', async () => {
    await start({ ...PUNCHES_300, faults: { errorOnDataWrrq: true } });
    const c = await tcp();
    await c.connect();
    expect((await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG)).command).toBe(CMD.ACK_ERROR);
    h.sim.setFaults({ errorOnDataWrrq: false });
    expect((await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG)).command).toBe(CMD.ACK_OK);
  });
});

describe('write-shape faults', () => {
  it('splitPackets cuts CMD_DATA into packets of N data bytes, each its own write when paced', async () => {
    await start({ ...PUNCHES_300, faults: { splitPackets: 1008, pacingMs: 8 } });
    const c = await tcp();
    const n = Math.ceil(SIZE_300 / 1008);
    const { packets, reads } = await downloadChunk(c, n + 2);
    expect(packets[0]!.data.readUInt32LE(4)).toBe(1008); // PREPARE_DATA announces the packet size
    const data = packets.slice(1, -1);
    expect(data.map((p) => p.data.length)).toEqual([...Array(n - 1).fill(1008), SIZE_300 - (n - 1) * 1008]);
    expect(data.map((p) => p.sessionId)).toEqual([...Array(n).keys()]);
    expect(reads).toEqual([[CMD.PREPARE_DATA], ...Array(n - 1).fill([CMD.DATA]), [CMD.DATA, CMD.ACK_OK]]);
    const att = decodeAttendances(Buffer.concat(data.map((p) => p.data)), { recordSize: 40 }).records;
    expect(att).toHaveLength(300);
  });

  it('separateTrailingAck sends the chunk-closing ACK_OK in its own write', async () => {
    await start({ ...PUNCHES_300, faults: { separateTrailingAck: true, pacingMs: 10 } });
    const c = await tcp();
    const { reads } = await downloadChunk(c, 3);
    expect(reads).toEqual([[CMD.PREPARE_DATA], [CMD.DATA], [CMD.ACK_OK]]);
  });

  it('pacingMs pauses after every packet written', async () => {
    await start({ faults: { pacingMs: 40 } });
    const c = await tcp();
    await c.connect();
    const readsFrom = c.reads.length;
    const from = c.packets.length;
    for (let i = 0; i < 4; i++) c.send(CMD.GET_TIME);
    await c.waitPackets(from + 4);
    const reads = c.reads.slice(readsFrom);
    expect(reads.map((r) => r.packets.length)).toEqual([1, 1, 1, 1]);
    for (let i = 1; i < reads.length; i++) expect(reads[i]!.at - reads[i - 1]!.at).toBeGreaterThanOrEqual(30);
  });

  it('pacing applies to UDP datagrams too', async () => {
    await start({ faults: { pacingMs: 40 } });
    const c = await h.udp();
    await c.connect();
    const from = c.reads.length;
    c.send(CMD.GET_TIME);
    c.send(CMD.GET_TIME);
    await c.waitPackets(3);
    const reads = c.reads.slice(from);
    expect(reads[1]!.at - reads[0]!.at).toBeGreaterThanOrEqual(30);
  });

  it('slowLinkBytesPerSecond delivers a packet in pieces, at that rate', async () => {
    await start({ ...PUNCHES_300, directThreshold: 1 << 20, faults: { slowLinkBytesPerSecond: 40_000 } });
    const c = await tcp();
    await c.connect();
    const t0 = performance.now();
    const readsFrom = c.reads.length;
    const r = await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG); // direct: one 12 020-byte packet
    const elapsed = performance.now() - t0;
    expect(r.data.length).toBe(SIZE_300);
    expect(elapsed).toBeGreaterThanOrEqual(250); // 12 020 bytes at 40 000 B/s ≈ 300 ms
    expect(c.reads.length - readsFrom).toBeGreaterThanOrEqual(6);
  });
});

describe('connection faults', () => {
  it('closeAfterExit: the server closes after answering EXIT; by default it leaves that to the client', async () => {
    await start({});
    const a = await tcp();
    await a.connect();
    expect((await a.request(CMD.EXIT)).command).toBe(CMD.ACK_OK);
    expect(await a.closedWithin(300)).toBe(false);

    h.sim.setFaults({ closeAfterExit: true });
    const b = await tcp();
    await b.connect();
    expect((await b.request(CMD.EXIT)).command).toBe(CMD.ACK_OK);
    expect(await b.closedWithin(1000)).toBe(true);
  });

  it('maxSessions refuses connections beyond the limit', async () => {
    await start({ faults: { maxSessions: 2 } });
    const a = await tcp();
    const b = await tcp();
    await a.connect();
    await b.connect();
    const c = await tcp();
    expect(await c.closedWithin(1000)).toBe(true);
    expect(h.sim.sessions()).toBe(2);
    a.close();
    await waitFor(() => h.sim.sessions() === 1, 20_000, 'session count');
    const d = await tcp();
    expect((await d.connect()).command).toBe(CMD.ACK_OK);
    expect(h.sim.sessions()).toBe(2);
  });

  it('disconnectMidTransferAfterBytes cuts the connection inside a CMD_DATA packet', async () => {
    await start({ ...PUNCHES_300, faults: { disconnectMidTransferAfterBytes: 5000 } });
    const c = await tcp();
    await c.connect();
    await c.request(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    c.send(CMD.DATA_RDY, dataRdy(0, 65472));
    expect(await c.closedWithin(2000)).toBe(true);
    // CONNECT reply, ACK_OK + stat, PREPARE_DATA, then the CMD_DATA prefix + header and 5000 dataset bytes.
    expect(c.bytesReceived).toBe(16 + (16 + 13) + (16 + 8) + 16 + 5000);
    expect(c.packets.map((p) => p.command)).toEqual([CMD.ACK_OK, CMD.ACK_OK, CMD.PREPARE_DATA]);
  });

  it('disconnectMidTransferAfterBytes also cuts a direct reply', async () => {
    await start({
      punches: [{ userId: '1', logTime: '2024-01-01 08:00:00' }],
      faults: { disconnectMidTransferAfterBytes: 10 },
    });
    const c = await tcp();
    await c.connect();
    c.send(CMD.DATA_WRRQ, WRRQ_ATTLOG);
    expect(await c.closedWithin(2000)).toBe(true);
    expect(c.bytesReceived).toBe(16 + 16 + 10);
  });
});
