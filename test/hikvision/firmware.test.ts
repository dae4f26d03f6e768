import { afterEach, describe, expect, it } from 'vitest';
import { checkHikvisionTerminal } from '../../src/check/hikvision-check.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { parseDeviceJson } from '../../src/sources/hikvision/isapi.js';
import { MultipartStreamParser, StreamBoundError, type StreamPart } from '../../src/sources/hikvision/multipart.js';
import { accessEventOf } from '../../src/sources/hikvision/realtime.js';
import { jsonText } from '../../src/sim/hikvision/server.js';
import { generateEvents, startHikvisionSim, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import {
  expectedPunches,
  hikConfig,
  journalFixture,
  journalKeys,
  PASSWORD,
  passwordEnv,
  searches,
  startSim,
} from './helpers.js';

/**
 * The Hikvision firmware variants seen in the field (../shared notes: hikvision-isapi.md, the
 * Hikvision part of adms-security-push.md; captures in creatorsgarten/garden-gate HIKVISION.md and
 * the Home Assistant add-on threads): each read through the real poll against the simulator
 * speaking it, counting the punches journalled.
 */
let sim: HikvisionSim | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
const pollers: HikvisionPoller[] = [];
afterEach(async () => {
  for (const p of pollers.splice(0)) await p.close();
  await sim?.stop();
  fx?.cleanup();
  sim = fx = undefined;
});

function poller(s: HikvisionSim) {
  const p = new HikvisionPoller(hikConfig(s), fx!.deps, undefined, passwordEnv());
  pollers.push(p);
  return p;
}

describe('a refused endSerialNo is not firmware without serial filters', () => {
  it('refusing 3,000,000,000 while advertising 4,294,967,295: tried with 999,999,999, read by serial number', async () => {
    sim = await startSim(120, { firmware: { endSerialMax: 999_999_999 } });
    fx = journalFixture();
    const p = poller(sim);
    const r = await p.poll();
    expect(r).toMatchObject({ ok: true, mode: 'serial', added: 120 });
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
    const ends = searches(sim).map((c) => c.endSerialNo);
    expect(ends[0]).toBe(3_000_000_000);
    expect(ends.slice(1).every((e) => e === 999_999_999)).toBe(true);
    expect(sim.requests().filter((q) => q.path.endsWith('/AcsEvent/capabilities'))).toHaveLength(1);
    // The next poll asks with the end that worked at once, by serial number.
    sim.addEvents([{ major: 5, minor: 75, employeeNoString: 'NEXT' }]);
    sim.clearRequests();
    expect(await p.poll()).toMatchObject({ ok: true, mode: 'serial', added: 1 });
    expect(searches(sim).map((c) => [c.beginSerialNo !== undefined, c.endSerialNo])).toEqual([[true, 999_999_999]]);
  });

  it('a maximum the capabilities advertise is tried first', async () => {
    sim = await startSim(40, { firmware: { endSerialMax: 2_000_000_000, advertisedEndSerialMax: 2_000_000_000 } });
    fx = journalFixture();
    expect(await poller(sim).poll()).toMatchObject({ ok: true, mode: 'serial', added: 40 });
    const ends = searches(sim).map((c) => c.endSerialNo);
    expect(ends[0]).toBe(3_000_000_000);
    expect(new Set(ends.slice(1))).toEqual(new Set([2_000_000_000]));
  });

  it('check tells such firmware has serial filters', async () => {
    sim = await startSim(3, { firmware: { endSerialMax: 999_999_999 } });
    const r = await checkHikvisionTerminal(hikConfig(sim), 0, { clock: { now: Date.now }, env: passwordEnv() });
    expect(r.detail).toContain('event search by serial number');
  });
});

describe('answers laid out as real firmware writes them', () => {
  it('XML deviceInfo although JSON was asked, JSON with TABs (cJSON) or indented: the same punches', async () => {
    for (const firmware of [{ deviceInfoXml: true, jsonLayout: 'tabs' as const }, { jsonLayout: 'indent' as const }]) {
      sim = await startSim(60, { firmware, serialNumber: 'DS-K1T342MWX20230101V031000ENL12345678' });
      fx = journalFixture();
      const r = await poller(sim).poll();
      expect(r).toMatchObject({ ok: true, serial: 'DS-K1T342MWX20230101V031000ENL12345678', added: 60 });
      expect(journalKeys(fx.journal)).toEqual(expectedPunches(sim.events()));
      expect(fx.journal.terminals.get('reception')!.firmware).toBe('DS-K1T341AMF V3.2.30');
      await pollers.pop()!.close();
      await sim.stop();
      fx.cleanup();
    }
    sim = fx = undefined;
  });

  it('real rows (pictureURL, FaceRect, mask, cardType, userType, 20-digit cards, door events "invalid", 5/9 cards of nobody): exactly the passes', async () => {
    const utcOffset = '+07:00';
    sim = await startHikvisionSim({
      password: PASSWORD,
      utcOffset,
      firmware: { jsonLayout: 'tabs' },
      events: generateEvents({
        passes: 300,
        startMs: Date.now() - 3 * 3_600_000,
        utcOffset,
        noise: true,
        realFirmware: true,
        seed: 11,
      }),
    });
    fx = journalFixture();
    const all = sim.events();
    expect(all.some((e) => e.minor === 9 && e.cardNo?.length === 20 && !e.employeeNoString)).toBe(true);
    expect(all.some((e) => e.minor === 21 && e.currentVerifyMode === 'invalid')).toBe(true);
    expect(all.some((e) => e.extra?.FaceRect && e.extra.pictureURL)).toBe(true);
    const r = await poller(sim).poll();
    expect(r).toMatchObject({ ok: true, added: 300 });
    expect(journalKeys(fx.journal)).toEqual(expectedPunches(all));
  });

  it('a 20-digit card number written as a bare JSON number keeps its digits', () => {
    const o = parseDeviceJson(
      '{"InfoList":[{"cardNo":\t12345678901234567890,"employeeNoString":"","serialNo":42}]}',
    ) as {
      InfoList: { cardNo: unknown; serialNo: unknown }[];
    };
    expect(o.InfoList[0]).toEqual({ cardNo: '12345678901234567890', employeeNoString: '', serialNo: 42 });
  });

  it('the simulator writes TABs as cJSON does', () => {
    expect(jsonText({ a: { b: 1 } }, 'tabs')).toBe('{\n\t"a":\t{\n\t\t"b":\t1\n\t}\n}');
  });
});

describe('the alert stream as firmware sends it', () => {
  const parse = (text: string | Buffer, chunk: number, bounds = {}) => {
    const parts: StreamPart[] = [];
    const p = new MultipartStreamParser('MIME_boundary', (x) => parts.push(x), bounds);
    const buf = Buffer.isBuffer(text) ? text : Buffer.from(text);
    for (let i = 0; i < buf.length; i += chunk) p.push(buf.subarray(i, i + chunk));
    return parts;
  };
  // cJSON's layout, as a DS-K1T terminal writes its alerts.
  const alert = (serialNo: number, employee: string, current = true) =>
    jsonText(
      {
        ipAddress: '192.168.0.70',
        portNo: 80,
        protocol: 'HTTP',
        dateTime: '2026-11-02T07:58:01+01:00',
        activePostCount: 1,
        eventType: 'AccessControllerEvent',
        eventState: 'active',
        AccessControllerEvent: {
          deviceName: 'DS-K1T342MWX',
          majorEventType: 5,
          subEventType: 75,
          employeeNoString: employee,
          serialNo,
          currentEvent: current,
          frontSerialNo: serialNo - 1,
          mask: 'no',
          FaceRect: { height: 0.3, width: 0.2, x: 0.4, y: 0.3 },
        },
      },
      'tabs',
    );

  it('part heads ending in a bare LF, in CRLF, or mixed; a stray head before the first boundary; any chunking', () => {
    const a = alert(7, '1042');
    const b = alert(8, '1043', false);
    const stream =
      // What one capture begins with: a stray Content-Length head before the first boundary.
      `Content-Length: 314\n\n` +
      `--MIME_boundary\nContent-Type: application/json; charset="UTF-8"\nContent-Length: ${Buffer.byteLength(a)}\n\n${a}\r\n` +
      `--MIME_boundary\r\nContent-Type: application/json\n\r\n${b}\r\n` +
      `--MIME_boundary\nContent-Type: image/jpeg\nContent-Length: 4\n\n\xff\xd8\xff\xd9\r\n` +
      `--MIME_boundary\n`;
    for (const chunk of [1, 3, 64, 100_000]) {
      const events = parse(stream, chunk).map(accessEventOf);
      expect(events.filter(Boolean).map((e) => [e!.employeeNo, e!.serialNo, e!.currentEvent])).toEqual([
        ['1042', 7, undefined],
        ['1043', 8, false],
      ]);
    }
  });

  it('is read in one pass: a 3 MB part in 16-byte chunks (joining the buffer at every chunk would copy terabytes)', () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 0x41);
    const stream = Buffer.concat([
      Buffer.from('--MIME_boundary\r\nContent-Type: image/jpeg\r\n\r\n'),
      big,
      Buffer.from(
        `\r\n--MIME_boundary\r\nContent-Type: application/json\r\n\r\n${alert(9, '1044')}\r\n--MIME_boundary\r\n`,
      ),
    ]);
    const parts = parse(stream, 16);
    expect(parts.map((p) => p.body.length)[0]).toBe(big.length + 2);
    expect(accessEventOf(parts[1]!)?.employeeNo).toBe('1044');
  });

  it('a part that never ends, one announced as 100 MB, or a head without end is a StreamBoundError, not memory', () => {
    const bounds = { maxPartBytes: 256 * 1024, maxHeadBytes: 1024 };
    const endless = Buffer.concat([Buffer.from('--MIME_boundary\r\n\r\n'), Buffer.alloc(300 * 1024, 0x41)]);
    expect(() => parse(endless, 4096, bounds)).toThrow(StreamBoundError);
    expect(() => parse(`--MIME_boundary\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\nxx`, 64, bounds)).toThrow(
      /a part of 100 MB/,
    );
    expect(() => parse(`--MIME_boundary\r\nX: ${'y'.repeat(2000)}`, 64, bounds)).toThrow(/part head/);
    expect(() => parse(Buffer.alloc(300 * 1024, 0x42), 4096, bounds)).toThrow(/without a part boundary/);
  });
});
