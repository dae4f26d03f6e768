import type { IncomingMessage } from 'node:http';
import { codingsOf, decodeBody } from '../../util/content-coding.js';

/**
 * Reading request bodies on the one port open to the LAN: every body is capped, and all the
 * bodies being read at once share one memory budget, so many terminals (or one attacker)
 * cannot make the gateway hold more than that in memory.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  take(n: number): boolean {
    if (this.used + n > this.maxBytes) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

export type BodyOutcome =
  | { kind: 'body'; data: Buffer }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'busy' }
  /** Compressed in a coding not read here, or not in the coding it names (content-coding.ts). */
  | { kind: 'unreadable-coding'; coding: string; why: string }
  /** The client went away before the body was complete (dropped connection mid-body). */
  | { kind: 'aborted' };

/**
 * The whole body, uncompressed (content-coding.ts), or why not. Never rejects. `discard`: count
 * the bytes, keep none (photos).
 */
export function readBody(
  req: IncomingMessage,
  opts: { maxBytes: number; budget: BodyBudget; discard?: boolean },
): Promise<BodyOutcome> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    return Promise.resolve({ kind: 'too-large', bytes: declared });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    /** Bytes held in memory, taken from the shared budget. */
    let held = 0;
    let settled = false;
    const finish = (outcome: BodyOutcome) => {
      if (settled) return;
      settled = true;
      opts.budget.give(held);
      req.off('data', onData);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > opts.maxBytes) return finish({ kind: 'too-large', bytes });
      if (opts.discard) return;
      if (!opts.budget.take(chunk.length)) return finish({ kind: 'busy' });
      held += chunk.length;
      chunks.push(chunk);
    };
    req.on('data', onData);
    const ended = async () => {
      // The connection is gone before its answer (the bytes after the body were no request: a
      // Content-Length shorter than the body cut its last line): the terminal is never told OK and
      // sends it again, so nothing of a body that may be cut short is journalled.
      if (req.socket.destroyed) return finish({ kind: 'aborted' });
      if (opts.discard) return finish({ kind: 'body', data: Buffer.alloc(0) });
      const data = Buffer.concat(chunks);
      const codings = codingsOf(req.headers);
      if (codings.length === 0) return finish({ kind: 'body', data });
      // What it may grow to while it is uncompressed is held from the shared budget too.
      if (!opts.budget.take(opts.maxBytes)) return finish({ kind: 'busy' });
      held += opts.maxBytes;
      const decoded = await decodeBody(data, codings, opts.maxBytes);
      if (decoded.kind === 'body') return finish(decoded);
      if (decoded.kind === 'too-large') return finish({ kind: 'too-large', bytes: opts.maxBytes + 1 });
      finish({ kind: 'unreadable-coding', coding: decoded.coding, why: decoded.why });
    };
    req.once('end', () => void ended());
    req.once('aborted', () => finish({ kind: 'aborted' }));
    req.once('error', () => finish({ kind: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) finish({ kind: 'aborted' });
    });
  });
}

// Answers are shared with the other terminals that post to the receiver (src/sources/http-answer.ts).
export { answer } from '../http-answer.js';
