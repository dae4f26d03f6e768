import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { createLogger } from '../../src/util/logger.js';
import { startHikvisionSim, type HikvisionSim, type NewSimEvent } from '../../src/sim/hikvision/index.js';
import { hikConfig, journalFixture, journalKeys, PASSWORD, passwordEnv } from './helpers.js';

/**
 * AcsEvent search answers shaped as published captures from real terminals show them, each row
 * rebuilt here (our own names and numbers), its source named. Every row goes through the real
 * poll against the simulator into a real journal: the passes must all be journalled with the
 * device's wall clock, and nothing else (door events, failures, time-outs) may become a punch.
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

async function pollRows(rows: NewSimEvent[], utcOffset = '+07:00', minors?: number[]) {
  sim = await startHikvisionSim({ password: PASSWORD, utcOffset, events: rows });
  fx = journalFixture();
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s) => void lines.push(s) } });
  const p = new HikvisionPoller(
    hikConfig(sim, minors ? { minors } : {}),
    { ...fx.deps, logger },
    undefined,
    passwordEnv(),
  );
  pollers.push(p);
  return { result: await p.poll(), keys: journalKeys(fx.journal), lines };
}

describe('AcsEvent rows as published captures show them', () => {
  it('card passes with string card numbers and +07:00 (creatorsgarten/garden-gate HIKVISION.md, "Fetch logs")', async () => {
    const card = (time: string, cardNo: string): NewSimEvent => ({
      major: 5,
      minor: 1,
      time,
      cardNo,
      employeeNoString: '200071',
      name: 'Visitor',
      doorNo: 1,
      currentVerifyMode: 'cardOrFaceOrFp',
      extra: { cardType: 1, cardReaderNo: 1, type: 0, userType: 'normal' },
    });
    const { result, keys } = await pollRows([
      card('2023-06-09T19:05:47+07:00', 'gate-AAAA0001'),
      card('2023-06-09T19:29:42+07:00', 'gate-AAAA0002'),
      card('2023-06-09T19:53:33+07:00', 'gate-AAAA0003'),
    ]);
    expect(result).toMatchObject({ ok: true, added: 3 });
    expect(keys).toEqual(['200071@2023-06-09 19:05:47', '200071@2023-06-09 19:29:42', '200071@2023-06-09 19:53:33']);
  });

  it('a fingerprint pass at "-00:00" and its door-closed event (pergolafabio/Hikvision-Addons#177, DS-K1T502DBFWX-C)', async () => {
    const { result, keys } = await pollRows(
      [
        { major: 5, minor: 38, time: '2024-01-09T16:51:51-00:00', employeeNoString: '7', currentVerifyMode: 'fp' },
        { major: 5, minor: 22, time: '2024-01-09T16:51:56-00:00', doorNo: 1, currentVerifyMode: 'invalid' },
      ],
      '+00:00',
    );
    expect(result).toMatchObject({ ok: true, added: 1 });
    expect(keys).toEqual(['7@2024-01-09 16:51:51']);
  });

  it('face combined with card, fingerprint or password (minors 54, 57, 60, 63, 66: the HCNetSDK MINOR_FACE_AND_*_VERIFY_PASS codes) are punches; their failures and time-outs are not', async () => {
    // The codes as the HCNetSDK headers publish them (ports of them in pergolafabio/Hikvision-Addons
    // and many SDK wrappers): a terminal set to "face and card" writes 5/60 for every pass.
    const at = (s: number) => `2026-11-02T08:00:${String(s).padStart(2, '0')}+07:00`;
    const rows: NewSimEvent[] = [
      { major: 5, minor: 54, time: at(1), employeeNoString: 'F54', currentVerifyMode: 'faceAndFp' },
      { major: 5, minor: 57, time: at(2), employeeNoString: 'F57', currentVerifyMode: 'faceAndPw' },
      {
        major: 5,
        minor: 60,
        time: at(3),
        employeeNoString: 'F60',
        cardNo: '3170588421',
        currentVerifyMode: 'cardAndFace',
      },
      { major: 5, minor: 63, time: at(4), employeeNoString: 'F63', currentVerifyMode: 'faceAndFpAndPw' },
      { major: 5, minor: 66, time: at(5), employeeNoString: 'F66', currentVerifyMode: 'faceAndFpAndCard' },
      // Failures and time-outs of the same methods (55, 56, 58, 59, 61, 62, 64, 65, 67, 68).
      ...[55, 56, 58, 59, 61, 62, 64, 65, 67, 68].map((minor, i): NewSimEvent => ({
        major: 5,
        minor,
        time: at(10 + i),
        employeeNoString: `X${minor}`,
      })),
    ];
    const { result, keys } = await pollRows(rows);
    expect(result).toMatchObject({ ok: true, added: 5 });
    expect(keys).toEqual(['F54', 'F57', 'F60', 'F63', 'F66'].map((c, i) => `${c}@2026-11-02 08:00:0${i + 1}`));
  });

  it('the other passes of the HCNetSDK tables are punches by default: person + ID card (105), combined (153), Bluetooth (159), dynamic code (179), password (181); their failures and time-outs are not', async () => {
    // The codes as the HCNetSDK headers publish them (MINOR_PEOPLE_AND_ID_CARD_COMPARE_PASS 0x69,
    // MINOR_COMBINED_VERIFY_PASS 0x99, MINOR_BLUETOOTH_VERIFY_PASS 0x9f, MINOR_DYNAMICCODE_VERIFY_PASS
    // 0xb3, MINOR_PASSWD_VERIFY_PASS 0xb5, in the SDK ports of many public connectors).
    const at = (s: number) => `2026-11-02T08:00:${String(s).padStart(2, '0')}+07:00`;
    const passes = [105, 153, 159, 179, 181];
    const rows: NewSimEvent[] = [
      ...passes.map((minor, i): NewSimEvent => ({ major: 5, minor, time: at(i + 1), employeeNoString: `P${minor}` })),
      // Their failures and time-outs: 112 person + ID card failed, 154 combined timed out,
      // 155 verify mode mismatch, 160 Bluetooth failed, 180 dynamic code failed, 151 password mismatch.
      ...[112, 154, 155, 160, 180, 151].map((minor, i): NewSimEvent => ({
        major: 5,
        minor,
        time: at(20 + i),
        employeeNoString: `X${minor}`,
      })),
    ];
    const { result, keys } = await pollRows(rows);
    expect(result).toMatchObject({ ok: true, added: 5 });
    expect(keys).toEqual(passes.map((m, i) => `P${m}@2026-11-02 08:00:0${i + 1}`));
  });

  it('passes a `minors` list written before face and card was used leaves out are said, never dropped in silence', async () => {
    const at = (s: number) => `2026-11-02T08:00:0${s}+07:00`;
    const { result, keys, lines } = await pollRows(
      [
        { major: 5, minor: 75, time: at(1), employeeNoString: 'F75' },
        { major: 5, minor: 60, time: at(2), employeeNoString: 'F60' },
        { major: 5, minor: 60, time: at(3), employeeNoString: 'G60' },
        { major: 5, minor: 61, time: at(4), employeeNoString: 'X61' },
        { major: 5, minor: 22, time: at(5) },
      ],
      '+07:00',
      [1, 38, 75],
    );
    // As the site chose: only its listed passes are punches...
    expect(result).toMatchObject({ ok: true, added: 1, unlisted: { 60: 2 } });
    expect(keys).toEqual(['F75@2026-11-02 08:00:01']);
    // ...and the two face-and-card passes left out are told, with the fix; the failure (61) and the door event are not.
    const warned = lines.filter((l) => l.includes('leaves out'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('2 of 5/60');
    expect(warned[0]).toContain('add them to `minors`');
  });

  it('an hours-only offset (+05, -03: ISO 8601 allows it) is that offset on the hour: each pass a punch at its wall clock', async () => {
    // The device's own clock reads hours only too (its localTime at -03): the searches still run.
    const { result, keys } = await pollRows(
      [
        { major: 5, minor: 75, time: '2024-05-01T08:00:00+05', employeeNoString: 'H1' },
        { major: 5, minor: 75, time: '2024-05-01T08:01:00-03', employeeNoString: 'H2' },
        { major: 5, minor: 75, time: '2024-05-01T08:02:00+05:00', employeeNoString: 'H3' },
        { major: 5, minor: 75, time: '2024-05-01T08:03:00+0530', employeeNoString: 'H4' },
      ],
      '-03',
    );
    expect(result).toMatchObject({ ok: true, added: 4 });
    expect(result).toMatchObject({ quarantined: 0 });
    expect(keys).toEqual([
      'H1@2024-05-01 08:00:00',
      'H2@2024-05-01 08:01:00',
      'H3@2024-05-01 08:02:00',
      'H4@2024-05-01 08:03:00',
    ]);
  });

  it('time forms: +08:00, Z, no offset, a numeric employeeNo of old firmware, a card of nobody: one punch each at its wall clock', async () => {
    const { result, keys } = await pollRows([
      { major: 5, minor: 75, time: '2024-05-01T08:00:00+08:00', employeeNoString: 'A1', attendanceStatus: 'checkIn' },
      { major: 5, minor: 75, time: '2024-05-01T08:01:00Z', employeeNoString: 'A2', attendanceStatus: 'checkOut' },
      { major: 5, minor: 38, time: '2024-05-01T08:02:00', employeeNoString: 'A3' },
      { major: 5, minor: 1, time: '2024-05-01T08:03:00+08:00', extra: { employeeNo: 1042 } },
      { major: 5, minor: 1, time: '2024-05-01T08:04:00+08:00', cardNo: '0004521236' },
      // Access denied: card without right (5/9), fingerprint mismatch (5/39), face failed (5/76).
      { major: 5, minor: 9, time: '2024-05-01T08:05:00+08:00', cardNo: '0004521237' },
      { major: 5, minor: 39, time: '2024-05-01T08:06:00+08:00' },
      { major: 5, minor: 76, time: '2024-05-01T08:07:00+08:00', employeeNoString: 'A1' },
    ]);
    expect(result).toMatchObject({ ok: true, added: 5 });
    expect(keys).toEqual([
      '1042@2024-05-01 08:03:00',
      'A1@2024-05-01 08:00:00',
      'A2@2024-05-01 08:01:00',
      'A3@2024-05-01 08:02:00',
      'card:0004521236@2024-05-01 08:04:00',
    ]);
  });

  it('a zero offset written without its sign ("...T11:46:3100:00", as a Hikvision firmware wrote its dateTime: Supergiovane/node-red-contrib-hikvision-ultimate#59) is UTC: a punch at its wall clock, not quarantined', async () => {
    const { result, keys } = await pollRows([
      { major: 5, minor: 75, time: '2024-01-22T11:46:3100:00', employeeNoString: 'Z1' },
      { major: 5, minor: 38, time: '2024-01-22T11:47:0500:00', employeeNoString: 'Z2' },
    ]);
    expect(result).toMatchObject({ ok: true, added: 2 });
    expect(fx!.journal.queries.quarantineSummary()).toEqual([]);
    expect(keys).toEqual(['Z1@2024-01-22 11:46:31', 'Z2@2024-01-22 11:47:05']);
  });
});
