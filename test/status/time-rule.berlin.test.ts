import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { createLogger, prettyLine } from '../../src/util/logger.js';
import { cliSandbox } from '../helpers/cli.js';
import { fakeClock } from '../helpers/tmp.js';

/**
 * One time rule (runs with TZ=Europe/Berlin): every time shown to a person is the box's local
 * time with its offset, in one format, in the status, `terminals`, `punches` and the pretty
 * log; the JSON log and JSON outputs are UTC ISO. Winter (+01:00) and summer (+02:00) instants.
 */
const WINTER = Date.UTC(2026, 10, 23, 13, 5, 9); // 14:05:09 in Berlin
const SUMMER = Date.UTC(2026, 6, 1, 10, 0, 0); // 12:00:00 in Berlin
const WINTER_TEXT = '2026-11-23 14:05:09 +01:00';
const SUMMER_TEXT = '2026-07-01 12:00:00 +02:00';
const re = (text: string) => text.replace('+', '\\+');

describe('one time rule: box time with its offset everywhere a person reads a time', () => {
  let box: ReturnType<typeof cliSandbox>;
  beforeEach(() => {
    expect(process.env.TZ).toBe('Europe/Berlin');
    box = cliSandbox({ terminals: [{ name: 'gate-1', kind: 'zk', host: '10.0.0.1' }] });
    const clock = fakeClock(WINTER);
    const journal = Journal.open({ path: box.tmp.path('journal.db'), site: 'plant-a', clock, mode: 'owner' });
    journal.terminals.update('gate-1', { online: true, lastPollAt: WINTER, lastSuccessAt: WINTER, serial: 'SN-1' });
    journal.ingest([{ terminal: 'gate-1', device: 'SN-1', biometricCode: '1042', logTime: '2026-11-23 14:00:00' }]);
    // The HRMS refuses it at the summer instant, then the delivery state records the winter one.
    clock.set(SUMMER);
    journal.settle(
      journal.claim(1).map((p) => ({ id: p.id, kind: 'rejected' as const, message: 'Unknown biometric code 1042' })),
    );
    clock.set(WINTER);
    journal.deliveryState.update({ auth: 'ok', lastSuccessAt: WINTER, lastResult: '1 sent: 1 rejected' });
    journal.close();
  });
  afterEach(() => box.tmp.cleanup());

  const cli = (...args: string[]) => box.cli(...args);

  it('status, terminals and punches --history show the same instants in the same format', async () => {
    const status = await cli('status');
    expect(status.stdout).toMatch(new RegExp(`gate-1 +online +last poll ${re(WINTER_TEXT)}`));
    expect(status.stdout).toContain(`last success: ${WINTER_TEXT} (1 sent: 1 rejected)`);

    const terminals = await cli('terminals');
    expect(terminals.stdout).toMatch(new RegExp(`gate-1 +zk +online +${re(WINTER_TEXT)} `));

    const punches = await cli('punches', '--history');
    expect(punches.stdout).toContain(
      `    ${SUMMER_TEXT}  attempt 1: refused, tried again later: Unknown biometric code 1042`,
    );
    // A punch's own time is the terminal's clock, shown as it recorded it.
    expect(punches.stdout).toMatch(/1042 +2026-11-23 14:00:00 +- +rejected/);

    // The machine outputs stay UTC ISO.
    const json = JSON.parse((await cli('status', '--json')).stdout) as { terminals: { lastPollAt: string }[] };
    expect(json.terminals[0]!.lastPollAt).toBe('2026-11-23T13:05:09.000Z');
  });

  it('the pretty log shows box time with the offset; the JSON log says UTC ISO', () => {
    expect(prettyLine(JSON.stringify({ level: 30, time: '2026-11-23T13:05:09.000Z', msg: 'hello', n: 1 }))).toBe(
      `${WINTER_TEXT} INFO  hello  n=1\n`,
    );
    expect(prettyLine(JSON.stringify({ level: 40, time: '2026-07-01T10:00:00.000Z', msg: 'summer' }))).toBe(
      `${SUMMER_TEXT} WARN  summer\n`,
    );
    const lines: string[] = [];
    const destination = { write: (s: string) => void lines.push(s) };
    const before = Date.now();
    createLogger({ destination }).info('json line');
    createLogger({ destination, pretty: true }).info('pretty line');
    const json = JSON.parse(lines[0]!) as { time: string; msg: string };
    expect(json.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(json.time)).toBeGreaterThanOrEqual(before - 1000);
    expect(lines[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0[12]:00 INFO {2}pretty line\n$/);
  });
});
