import type { IncomingMessage } from 'node:http';
import { codingsOf, decodeBody } from '../../util/content-coding.js';
import { MultipartStreamParser, StreamBoundError, boundaryOf, type StreamPart } from './multipart.js';

/**
 * Reading one event a Hikvision terminal posts by HTTP Listening (`httpHosts`): a JSON body
 * (`application/json`, eventType AccessControllerEvent), an XML `EventNotificationAlert` (some
 * firmware), or multipart/form-data whose event part is JSON or XML beside a picture part (a
 * face or a snapshot), which is read and dropped, never kept.
 *
 * The receiver's port is open to the LAN: a post is bounded in size (MAX_POST_BYTES with its
 * picture, MAX_EVENT_BYTES for the event itself) and in time (the receiver's request timeout),
 * and anything else is an outcome, never an exception. A post sent compressed (gzip, deflate or
 * br, by the terminal or a proxy) is uncompressed within the same bound before it is read: read
 * as it came, its event was "malformed" (400) and its pass waited for the poll. One in a coding
 * punchgate cannot read is said as such (415), never answered as kept.
 */

/** A whole post, picture included (a face picture is 50-300 kB; a scene snapshot up to about 1 MB). */
export const MAX_POST_BYTES = 4 * 1024 * 1024;
/** The event itself (JSON or XML): a few kB on real devices. */
export const MAX_EVENT_BYTES = 256 * 1024;

export type PostOutcome =
  | { kind: 'event'; part: StreamPart; pictureBytes: number }
  /** A multipart post without any JSON or XML part. */
  | { kind: 'no-event'; pictureBytes: number }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'malformed'; reason: string }
  /** Compressed in a coding not read here, or not in the coding it names (content-coding.ts). */
  | { kind: 'unreadable-coding'; coding: string; why: string }
  /** The sender went away before the post was complete. */
  | { kind: 'aborted' };

const isEventType = (contentType: string) => /json|xml|text\/plain/i.test(contentType);
const looksLikeEvent = (body: Buffer) => {
  const first = body.subarray(0, 64).toString('latin1').trimStart()[0];
  return first === '{' || first === '<';
};

/** Reads the post to its end (or its first bound) and returns its event part. Never rejects. */
export function readPost(req: IncomingMessage, maxPostBytes = MAX_POST_BYTES): Promise<PostOutcome> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > maxPostBytes)
    return Promise.resolve({ kind: 'too-large', bytes: declared });
  const type = req.headers['content-type'] ?? '';
  const multipart = /^multipart\//i.test(type);
  const boundary = multipart ? boundaryOf(type) : undefined;
  if (multipart && !boundary)
    return Promise.resolve({ kind: 'malformed', reason: 'a multipart post without a boundary' });
  return new Promise((resolve) => {
    let bytes = 0;
    let settled = false;
    const chunks: Buffer[] = [];
    let event: StreamPart | undefined;
    let pictureBytes = 0;
    let tooBig: string | undefined;
    const parser = boundary
      ? new MultipartStreamParser(
          boundary,
          (part) => {
            const isEvent = isEventType(part.contentType) || (part.contentType === '' && looksLikeEvent(part.body));
            if (!isEvent || event) {
              // The picture (or a second event part): counted, dropped here.
              pictureBytes += part.body.length;
              return;
            }
            if (part.body.length > MAX_EVENT_BYTES) tooBig = `an event part of ${part.body.length} bytes`;
            else event = part;
          },
          { maxPartBytes: maxPostBytes },
        )
      : undefined;
    const finish = (o: PostOutcome) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(o);
    };
    /** The post's bytes as sent, read (a compressed post: once uncompressed). */
    const consume = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxPostBytes) return finish({ kind: 'too-large', bytes });
      if (parser) {
        try {
          parser.push(chunk);
        } catch (e) {
          return finish({ kind: 'malformed', reason: e instanceof StreamBoundError ? e.message : String(e) });
        }
        if (tooBig) return finish({ kind: 'malformed', reason: tooBig });
        return;
      }
      if (bytes > MAX_EVENT_BYTES) return finish({ kind: 'too-large', bytes });
      chunks.push(chunk);
    };
    const codings = codingsOf(req.headers);
    /** A compressed post, held as it came (within the same bound) until its end. */
    const coded: Buffer[] = [];
    let codedBytes = 0;
    const onData = (chunk: Buffer) => {
      if (codings.length === 0) return consume(chunk);
      codedBytes += chunk.length;
      if (codedBytes > maxPostBytes) return finish({ kind: 'too-large', bytes: codedBytes });
      coded.push(chunk);
    };
    req.on('data', onData);
    const ended = async () => {
      if (codings.length > 0) {
        const decoded = await decodeBody(Buffer.concat(coded), codings, maxPostBytes);
        if (decoded.kind === 'too-large') return finish({ kind: 'too-large', bytes: maxPostBytes + 1 });
        if (decoded.kind === 'unreadable')
          return finish({ kind: 'unreadable-coding', coding: decoded.coding, why: decoded.why });
        consume(decoded.data);
        if (settled) return;
      }
      if (!parser)
        return finish({ kind: 'event', part: { contentType: type, body: Buffer.concat(chunks) }, pictureBytes: 0 });
      // A last part whose closing boundary never came is not a whole part: nothing is guessed.
      finish(event ? { kind: 'event', part: event, pictureBytes } : { kind: 'no-event', pictureBytes });
    };
    req.once('end', () => void ended());
    req.once('aborted', () => finish({ kind: 'aborted' }));
    req.once('error', () => finish({ kind: 'aborted' }));
    req.once('close', () => {
      if (!req.complete) finish({ kind: 'aborted' });
    });
  });
}
