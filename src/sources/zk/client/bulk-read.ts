/**
 * Chunked bulk download (A4): DATA_WRRQ -> either CMD_DATA with the whole dataset, or ACK_OK with
 * a 13-byte stat giving the size; then one DATA_RDY(start, length) per chunk of <= chunkSize bytes,
 * each answered by PREPARE_DATA, one or more CMD_DATA and ACK_OK (all with the request's reply id);
 * finally FREE_DATA. Chunks are requested one at a time and every byte count is verified.
 */
import {
  CMD,
  commandName,
  MAX_CHUNK,
  ZkChunkNotWholeError,
  ZkDownloadRefusedError,
  ZkProtocolError,
  type ZkPacket,
} from '../protocol/index.js';
import { ChunkPackets } from './chunk-packets.js';
import type { Collector, ZkExchange } from './exchange.js';
import { expectOk, isRefusal } from './replies.js';

export interface BulkReadRequest {
  /** The read command wrapped in DATA_WRRQ: USERTEMP_RRQ (9) or ATTLOG_RRQ (13). */
  command: number;
  fct?: number;
  ext?: number;
}

export interface BulkReadOptions {
  chunkSize?: number;
  /** Called as bytes arrive: (bytes so far, total bytes). */
  onProgress?: (received: number, total: number) => void;
  /** Called each time a piece that did not come whole is asked for again. */
  onAskedAgain?: () => void;
}

/** Refuse to allocate for an absurd announced size (a corrupt stat): 64 MiB is ~1.6 M attendance records. */
export const MAX_DATASET = 64 * 1024 * 1024;

/** Downloads one whole dataset (u32 size prefix + records) and frees it on the terminal. */
export async function readDataset(ex: ZkExchange, req: BulkReadRequest, opts: BulkReadOptions = {}): Promise<Buffer> {
  const chunkSize = Math.min(opts.chunkSize ?? MAX_CHUNK, MAX_CHUNK);
  const prepared = await prepareDataset(ex, req);
  if (typeof prepared !== 'number') {
    opts.onProgress?.(prepared.length, prepared.length);
    await freeData(ex);
    return prepared;
  }
  const total = prepared;
  const out = Buffer.alloc(total);
  // A terminal may serve fewer bytes than asked (PREPARE_DATA says how many): the next request
  // starts where the served bytes end, so nothing is skipped and nothing read twice.
  for (let start = 0; start < total;) {
    const length = Math.min(chunkSize, total - start);
    const chunk = await readChunkTrying(
      ex,
      start,
      length,
      (got) => opts.onProgress?.(start + got, total),
      opts.onAskedAgain,
    );
    chunk.copy(out, start);
    start += chunk.length;
    opts.onProgress?.(start, total);
  }
  await freeData(ex);
  return out;
}

/**
 * How many bytes the terminal would hand over for a dataset, without reading it (`check`): the
 * download asked (DATA_WRRQ), its size read from the answer, the terminal's buffer freed. A refusal
 * is the download's (ZkDownloadRefusedError). A small dataset comes whole in the answer itself.
 */
export async function datasetSize(ex: ZkExchange, req: BulkReadRequest): Promise<number> {
  const prepared = await prepareDataset(ex, req);
  await freeData(ex);
  return typeof prepared === 'number' ? prepared : prepared.length;
}

/**
 * DATA_WRRQ: the dataset whole (a small one, in the answer) or its size (read by DATA_RDY pieces).
 * The terminal keeps a buffer prepared until FREE_DATA.
 */
async function prepareDataset(ex: ZkExchange, req: BulkReadRequest): Promise<Buffer | number> {
  const wrrq = Buffer.alloc(11);
  wrrq.writeUInt8(1, 0);
  wrrq.writeUInt16LE(req.command, 1);
  wrrq.writeUInt32LE(req.fct ?? 0, 3);
  wrrq.writeUInt32LE(req.ext ?? 0, 7);
  const what = `DATA_WRRQ(${commandName(req.command)})`;
  const first = await ex.request<ZkPacket>(CMD.DATA_WRRQ, wrrq);

  if (first.command === CMD.DATA) return Buffer.from(first.data);
  // An error code or one of the terminal's own is its refusal of this dataset (see
  // ZkDownloadRefusedError), said as such: not "not a ZK terminal", which sent the admin to the address.
  if (isRefusal(first.command)) {
    throw new ZkDownloadRefusedError(
      `${ex.peer} refused ${what}: answered ${commandName(first.command)}`,
      first.command,
      req.command,
    );
  }
  expectOk(first, what, ex.peer);
  if (first.data.length < 5) {
    throw new ZkProtocolError(`${ex.peer} answered ${what} with a ${first.data.length}-byte stat; 13 expected`);
  }
  const total = first.data.readUInt32LE(1);
  if (total > MAX_DATASET) {
    throw new ZkProtocolError(
      `${ex.peer} announced a ${total}-byte dataset for ${what}; refusing more than ${MAX_DATASET}`,
    );
  }
  return total;
}

/** FREE_DATA: release the terminal's prepared buffer. */
export async function freeData(ex: ZkExchange): Promise<void> {
  const reply = await ex.request<ZkPacket>(CMD.FREE_DATA);
  if (reply.command !== CMD.ACK_OK) {
    throw new ZkProtocolError(`${ex.peer} answered FREE_DATA(1502) with ${commandName(reply.command)}`);
  }
}

/** Tries a chunk gets before the download fails (pyzk's __read_chunk tries 3 times too). */
const CHUNK_TRIES = 3;

/**
 * One chunk, asked again when it came short (or long): over UDP a datagram lost on the way (Wi-Fi,
 * a busy switch) leaves the chunk short when the terminal's ACK_OK arrives; one delivered twice, long. A log of 4 MB is about 4,000
 * datagrams; without a second try a loss of one in a thousand failed nearly every poll of it,
 * whole, for good. The terminal keeps its prepared buffer, so the same range is served again;
 * packets of the short try carry the old reply id and are not taken for the new one.
 */
async function readChunkTrying(
  ex: ZkExchange,
  start: number,
  length: number,
  progress: (got: number) => void,
  onAskedAgain?: () => void,
): Promise<Buffer> {
  for (let tried = 1; ; tried++) {
    if (tried > 1) onAskedAgain?.();
    try {
      return await readChunk(ex, start, length, progress);
    } catch (e) {
      if (!(e instanceof ZkChunkNotWholeError)) throw e;
      e.tries = tried;
      if (tried >= CHUNK_TRIES) throw e;
    }
  }
}

/**
 * How long a chunk whose ACK_OK came before all its bytes waits for the rest. Over UDP the ACK_OK
 * (8 bytes) can overtake the last CMD_DATA (coding-libs/zkteco-php#9, SC800 terminals): the chunk
 * was asked again at once, and failed the same way each time the network kept that habit. A
 * datagram truly lost is asked again after this wait.
 */
export const OVERTAKEN_ACK_WAIT_MS = 300;

function readChunk(ex: ZkExchange, start: number, length: number, progress: (got: number) => void): Promise<Buffer> {
  const req = Buffer.alloc(8);
  req.writeUInt32LE(start, 0);
  req.writeUInt32LE(length, 4);
  return ex.request(CMD.DATA_RDY, req, chunkCollector(ex.peer, start, length, progress, ex.sessionId));
}

/** Consumes exactly PREPARE_DATA, CMD_DATA..., ACK_OK for one DATA_RDY request. */
function chunkCollector(
  peer: string,
  start: number,
  length: number,
  progress: (got: number) => void,
  sessionId: number,
): Collector<Buffer> {
  const packets = new ChunkPackets();
  let prepared = false;
  let acked = false;
  /** Bytes this chunk carries: as asked, or fewer when PREPARE_DATA says the terminal serves less. */
  let expected = length;
  const where = `chunk at ${start} (${length} bytes) from ${peer}`;
  const short = () => ({
    ms: OVERTAKEN_ACK_WAIT_MS,
    error: () => new ZkChunkNotWholeError(`chunk ended after ${packets.bytes} of ${expected} bytes for the ${where}`),
  });
  return (p) => {
    switch (p.command) {
      case CMD.PREPARE_DATA: {
        const announced = p.data.length >= 4 ? p.data.readUInt32LE(0) : -1;
        // Fewer bytes than asked is a terminal with a smaller chunk limit (the caller asks for the
        // rest next); more, none, or a second PREPARE_DATA is not a chunk of this request.
        if (prepared || packets.bytes > 0 || acked || announced <= 0 || announced > length) {
          throw new ZkProtocolError(`PREPARE_DATA announced ${announced} bytes for the ${where}`);
        }
        expected = announced;
        prepared = true;
        return { done: false };
      }
      case CMD.DATA: {
        // The session field numbers the packets of a chunk (see ChunkPackets).
        packets.add(p.sessionId, p.data);
        const got = packets.bytes;
        if (got > expected) throw new ZkChunkNotWholeError(`received ${got} bytes for the ${where}`);
        // Some firmware answers DATA_RDY with one CMD_DATA and no PREPARE_DATA/ACK_OK: numbered 0,
        // or with the session id as a dataset sent whole is. Another number there is no such answer
        // but a packet of another session (see ZkExchange.fromSession), never taken for the piece.
        const lone = p.sessionId === 0 || p.sessionId === sessionId;
        if (!prepared && got === length && lone) return { done: true, value: packets.join() };
        // The ACK_OK overtaken by this packet (UDP): the chunk is whole now.
        if (acked && got === expected) return { done: true, value: packets.join() };
        progress(got);
        return acked ? { done: false, orElse: short() } : { done: false };
      }
      case CMD.ACK_OK: {
        // A second ACK_OK (a duplicated datagram) changes nothing.
        acked = true;
        if (packets.bytes !== expected) return { done: false, orElse: short() };
        return { done: true, value: packets.join() };
      }
      default:
        throw new ZkProtocolError(`unexpected ${commandName(p.command)} during the ${where}`);
    }
  };
}
