import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHrmsSim, type HrmsSim } from '../../src/sim/hrms/index.js';
import { boundaryOf, MultipartError, parseMultipart } from '../../src/sim/hrms/multipart.js';
import { ATT_PATH, TOKEN } from './helpers.js';

const body = (s: string) => Buffer.from(s.replace(/\n/g, '\r\n'));

describe('parseMultipart', () => {
  it('reads named parts, ignores the preamble and keeps the first of repeated names', () => {
    const b = body(
      'preamble to ignore\n--XyZ\nContent-Disposition: form-data; name="punches_data"\n\n[1,2]\n' +
        '--XyZ\nContent-Disposition: form-data; name="other"; filename="a.txt"\nContent-Type: text/plain\n\nline1\nline2\n' +
        '--XyZ\ncontent-disposition: form-data; name="punches_data"\n\nsecond\n--XyZ--\nepilogue',
    );
    const f = parseMultipart(b, 'XyZ');
    expect(f.get('punches_data')).toBe('[1,2]');
    expect(f.get('other')).toBe('line1\r\nline2');
    expect(f.size).toBe(2);
  });

  it('does not end a part at boundary-like text that is not at a line start', () => {
    const f = parseMultipart(body('--b\nContent-Disposition: form-data; name="x"\n\nvalue --b inside\n--b--\n'), 'b');
    expect(f.get('x')).toBe('value --b inside');
  });

  it('keeps UTF-8 text and empty values', () => {
    const f = parseMultipart(
      body(
        '--b\nContent-Disposition: form-data; name="n"\n\nJosé 名前\n--b\nContent-Disposition: form-data; name="e"\n\n\n--b--',
      ),
      'b',
    );
    expect(f.get('n')).toBe('José 名前');
    expect(f.get('e')).toBe('');
  });

  it('throws on a body without its closing boundary or without any boundary', () => {
    expect(() => parseMultipart(body('--b\nContent-Disposition: form-data; name="x"\n\nvalue'), 'b')).toThrow(
      MultipartError,
    );
    expect(() => parseMultipart(body('nothing here'), 'b')).toThrow(/no boundary/);
  });

  it('reads quoted and unquoted boundary parameters', () => {
    expect(boundaryOf('multipart/form-data; boundary="a b;c"')).toBe('a b;c');
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary=----x1')).toBe('----x1');
    expect(boundaryOf('multipart/form-data')).toBeNull();
  });
});

describe('multipart over the wire', () => {
  let sim: HrmsSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });

  /** Sends a raw HTTP request in several TCP writes with pauses, answers the raw response text. */
  function rawRequest(port: number, head: string, chunks: Buffer[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const sock = connect(port, '127.0.0.1');
      sock.setNoDelay(true);
      let out = '';
      sock.on('data', (d) => (out += d.toString('utf8')));
      sock.on('end', () => resolve(out));
      sock.on('error', reject);
      sock.on('connect', async () => {
        sock.write(head);
        for (const c of chunks) {
          await new Promise((r) => setTimeout(r, 15));
          sock.write(c);
        }
      });
    });
  }

  it('parses a body split across TCP packets, even inside the boundary', async () => {
    sim = await startHrmsSim({ tokens: [TOKEN] });
    const payload = body(
      '--splitB\nContent-Disposition: form-data; name="punches_data"\n\n' +
        JSON.stringify([{ biometriccode: '42', logDate: '2025-03-01 08:00:00', devicelogId: 'x' }]) +
        '\n--splitB--\n',
    );
    const cuts = [5, 30, 60, payload.length - 8, payload.length - 3];
    const chunks = cuts.map((c, i) => payload.subarray(i === 0 ? 0 : cuts[i - 1], c));
    chunks.push(payload.subarray(cuts[cuts.length - 1]));
    expect(Buffer.concat(chunks).equals(payload)).toBe(true);
    const head =
      `POST ${ATT_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n` +
      `Content-Type: multipart/form-data; boundary=splitB\r\nContent-Length: ${payload.length}\r\n\r\n`;
    const res = await rawRequest(sim.port, head, chunks);
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    expect(res).toContain('"Status":true');
    expect(sim.attendance().map((p) => p.biometriccode)).toEqual(['42']);
  });

  it('parses a chunked-encoding body', async () => {
    sim = await startHrmsSim({ tokens: [TOKEN] });
    const payload = body(
      '--c\nContent-Disposition: form-data; name="punches_data"\n\n[{"biometriccode":"7","logDate":"2025-03-01 08:00:00"}]\n--c--\n',
    );
    const half = Math.floor(payload.length / 2);
    const enc = (b: Buffer) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
    const head =
      `POST ${ATT_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n` +
      'Content-Type: multipart/form-data; boundary=c\r\nTransfer-Encoding: chunked\r\n\r\n';
    const res = await rawRequest(sim.port, head, [
      enc(payload.subarray(0, half)),
      enc(payload.subarray(half)),
      Buffer.from('0\r\n\r\n'),
    ]);
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    expect(sim.attendance()).toHaveLength(1);
  });

  it('answers 400 for a malformed multipart body and keeps serving', async () => {
    sim = await startHrmsSim({ tokens: [TOKEN] });
    const payload = body('--m\nContent-Disposition: form-data; name="punches_data"\n\n[]');
    const head =
      `POST ${ATT_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: close\r\n` +
      `Content-Type: multipart/form-data; boundary=m\r\nContent-Length: ${payload.length}\r\n\r\n`;
    const res = await rawRequest(sim.port, head, [payload]);
    expect(res).toMatch(/^HTTP\/1\.1 400/);
    expect(res).toContain('punches_data must be a JSON array (multipart body ends before its closing boundary)');
    expect(sim.received()).toEqual([]);
  });
});
