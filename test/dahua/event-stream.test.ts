import { Readable } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { DahuaClient } from '../../src/sources/dahua/client.js';
import { EventStreamScanner } from '../../src/sources/dahua/event-scanner.js';
import { EventLink } from '../../src/sources/dahua/realtime.js';
import { silentLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/wait.js';
import { dahuaConfig } from './helpers.js';

const BOUNDARY = 'myboundary';
const part = (body: string) =>
  `--${BOUNDARY}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}\r\n`;
const EVENT = 'Code=AccessControl;action=Pulse;index=0;data={"RecNo":12}';

/** Splits `text` at the given points (sorted, deduplicated, within it). */
function splitAt(text: string, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, text.length]) {
    if (c > from) out.push(Buffer.from(text.slice(from, c), 'latin1'));
    from = Math.max(from, c);
  }
  return out;
}

describe('Dahua event stream: a part is measured by its real bytes however it is chunked', () => {
  let link: EventLink | undefined;
  afterEach(async () => {
    await link?.stop();
    link = undefined;
  });

  it('a 60 kB part sent 8 bytes at a time is no part beyond 256 kB (found by an adversarial trial)', async () => {
    const stream = part('x'.repeat(60 * 1024)) + part(EVENT);
    const faults: string[] = [];
    let backfills = 0;
    const client = {
      http: {
        stream: () =>
          Promise.resolve({
            contentType: `multipart/x-mixed-replace; boundary=${BOUNDARY}`,
            // 8 bytes at a time, as a proxy forwarded them.
            body: Readable.from(
              splitAt(
                stream,
                Array.from({ length: stream.length / 8 }, (_, i) => i * 8),
              ),
            ),
          }),
      },
    } as unknown as DahuaClient;
    link = new EventLink(dahuaConfig({ port: 1 }, { realtime: true }), silentLogger(), {
      client: () => client,
      backfill: () => void backfills++,
      authWaitUntil: () => undefined,
      onAuthRefused: () => {},
      note: (w) => void (w && faults.push(w.cause)),
      now: () => Date.now(),
    });
    link.start();
    await waitFor(() => link!.events >= 1 || faults.length > 0, 10_000, 'the event read or a fault');
    expect(faults).toEqual([]);
    expect(link.events).toBe(1);
  });

  it('the same stream split at any points gives the same events and part sizes (property)', () => {
    const body = fc.oneof(
      fc.constant(EVENT),
      fc.constant('Heartbeat'),
      fc.string({ unit: fc.constantFrom('a', '-', '\r', '\n', 'C', '=', 'x'), maxLength: 300 }),
    );
    fc.assert(
      fc.property(fc.array(body, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 60 }), (bodies, cuts) => {
        const text = 'stray head\r\n' + bodies.map(part).join('');
        const marker = `--${BOUNDARY}`;
        const events = text.split('Code=AccessControl').length - 1;
        let seen = 0;
        const scanner = new EventStreamScanner(marker, () => void seen++);
        let at = 0;
        for (const chunk of splitAt(text, cuts)) {
          const measured = scanner.push(chunk);
          at += chunk.length;
          // The part in progress: the bytes since the end of the last boundary fully received.
          const last = text.lastIndexOf(marker, at - marker.length);
          expect(measured).toBe(at - (last < 0 ? 0 : last + marker.length));
        }
        expect(seen).toBe(events);
      }),
      { numRuns: 300 },
    );
  });
});
