import { afterEach, describe, expect, it } from 'vitest';
import { checkPushRefusals, readPushState } from '../../src/check/adms-check.js';
import { formatReport } from '../../src/check/format.js';
import { parseConfig } from '../../src/config/load.js';
import { buildStatus } from '../../src/status/index.js';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const LOBBY = 'CQZ7232160001';
const FENCED = 'CQZ7232160002';

/**
 * `punchgate check` says the strangers refused at the push receiver as the status does: a
 * serial spoofed from many addresses is one line, and many invented serials one summary.
 * Before, check wrote one WARN line per kept serial and per kept address (200 + 200 lines,
 * found by an adversarial trial: a flood of invented serials buried the HRMS's line under them).
 */
describe('punchgate check on strangers pushing', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('300 invented serials and a serial spoofed from 12 addresses: two lines, in the words of the status', async () => {
    const terminals = [terminal('lobby', LOBBY), terminal('fenced', FENCED, { allowFrom: ['127.0.0.1'] })];
    r = await startReceiver({ terminals, adms: { listen: '127.0.0.1:0' } });
    for (let i = 0; i < 12; i++)
      expect((await http(r.url, 'GET', `/iclock/ping?SN=${FENCED}`, undefined, {}, `127.0.1.${i + 1}`)).status).toBe(
        403,
      );
    for (let i = 0; i < 300; i++)
      await http(
        r.url,
        'GET',
        `/iclock/ping?SN=FAKE${String(i).padStart(5, '0')}`,
        undefined,
        {},
        `127.0.0.${10 + (i % 5)}`,
      );
    r.receiver['contacts'].flush();

    const now = Date.now();
    const push = readPushState(r.tmp.path('journal.db'), now);
    const checks = checkPushRefusals(push.refusals, terminals);
    expect(checks.map((c) => `${c.status} ${c.name}`)).toEqual([`warn terminal SN=${FENCED}`, 'warn unknown serials']);
    expect(checks[0]!.detail).toMatch(
      /^terminal SN=CQZ7232160002 \(fenced\) is pushing from 12 addresses outside its allowFrom \(12 requests refused/,
    );
    expect(checks[1]!.detail).toMatch(
      /^more than 200 unknown serials are pushing \(300 requests refused, from 127\.0\.0\.1\d/,
    );

    // The same words as the status's alerts.
    const status = buildStatus(
      r.journal,
      parseConfig(
        {
          site: 'adms',
          journal: { path: r.tmp.path('journal.db') },
          hrms: { baseUrl: 'https://hr.example.com' },
          adms: { listen: '127.0.0.1:8081' },
          terminals: terminals.map((t) => ({ ...t })),
        },
        r.tmp.dir,
      ),
      now,
    );
    const alerts = status.alerts.filter((a) => /SN=|serials/.test(a));
    expect(alerts).toEqual(checks.map((c) => `${c.detail}: ${c.fix}`));

    // The report stays short: a line each, not one per invented serial or address.
    const text = formatReport({ version: 'x', ok: true, exitCode: 0, quick: false, checks });
    expect(text.split('\n').filter((l) => l.startsWith('WARN'))).toHaveLength(2);
  });

  it('a few unknown serials are each a line of their own, as in the status', async () => {
    const terminals = [terminal('lobby', LOBBY)];
    r = await startReceiver({ terminals, adms: { listen: '127.0.0.1:0' } });
    for (const sn of ['STRANGER1', 'STRANGER2'])
      expect((await http(r.url, 'GET', `/iclock/ping?SN=${sn}`)).status).toBe(403);
    r.receiver['contacts'].flush();
    const push = readPushState(r.tmp.path('journal.db'), Date.now());
    const checks = checkPushRefusals(push.refusals, terminals);
    expect(checks.map((c) => c.name).sort()).toEqual(['terminal SN=STRANGER1', 'terminal SN=STRANGER2']);
    for (const c of checks)
      expect(c.detail).toMatch(/^terminal SN=STRANGER\d is pushing but is not configured \(from 127\.0\.0\.1/);
  });
});
