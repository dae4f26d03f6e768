import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { StatusLog } from '../../src/daemon/status-log.js';
import type { StatusReport } from '../../src/status/index.js';
import type { TerminalStatus } from '../../src/status/types.js';
import { silentLogger } from '../../src/util/logger.js';
import { REDACTED, Secrets } from '../../src/util/secrets.js';
import { expectNoSecret } from '../helpers/secret.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'hX7qLm29VtRp4sWz';
const REVERSED = [...TOKEN].reverse().join('');
const BASE64 = Buffer.from(`Bearer ${TOKEN}`).toString('base64');
const AT = '2026-11-29T12:00:00.000Z';

const terminal = (name: string, lastError: string | null): TerminalStatus => ({
  name,
  kind: 'zk',
  online: lastError === null,
  lastPollAt: AT,
  lastSuccessAt: AT,
  skewSeconds: 0,
  records: 20,
  users: 10,
  serial: `SN-${name}`,
  offlineSince: lastError === null ? null : AT,
  lastError,
  problem: null,
  stale: false,
  previousSerial: null,
});

const delivery = (lastError: string | null): StatusReport['delivery'] => ({
  auth: 'ok',
  authFailedSince: null,
  lastAttemptAt: AT,
  lastSuccessAt: AT,
  lastResult: '200 sent: 200 delivered',
  lastError,
  lastErrorAt: lastError === null ? null : AT,
  failingSince: null,
  nextTryAt: null,
  probing: false,
});

const counts = { pending: 3, inflight: 0, delivered: 48211, rejected: 0, dead: 0, quarantined: 0, notRouted: 0 };

/**
 * A report whose texts from outside quote the token in disguise, in fields of every depth: a
 * terminal's error, a second sink's error (a field the status page's old list of fields missed),
 * an alert. The journal and the clients scrub such texts where they are made; the status log is
 * the second belt, and it must hold for every field, whatever shape the report takes next.
 */
function leakyReport(): StatusReport {
  return {
    site: 'plant-a',
    version: '1.2.3',
    generatedAt: AT,
    punches: counts,
    oldestPending: null,
    delivery: delivery(null),
    terminals: [terminal('gate-1', null), terminal('gate-2', `device said ${REVERSED}`)],
    sinks: [
      { name: 'hrms', kind: 'hrms', default: true, punches: counts, delivery: delivery(null) },
      { name: 'frappe', kind: 'frappe', default: false, punches: counts, delivery: delivery(`HTTP 401: ${TOKEN}`) },
    ],
    journal: {
      path: '/var/lib/punchgate/journal.db',
      busySince: null,
      heldPunches: 0,
      freeBytes: 20e9,
      inflightSince: null,
    },
    config: null,
    daemon: null,
    alerts: [`the HRMS answered Authorization: Basic ${BASE64}`],
    alertItems: [],
  };
}

describe('the status log scrubs every string of its report', () => {
  const dirs: { cleanup: () => void }[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => d.cleanup()));

  it.each(['write', 'writeInSteps'] as const)(
    'through %s: no form of the token in status.txt or status.json',
    async (how) => {
      const tmp = tempDir('punchgate-status-scrub-');
      dirs.push(tmp);
      const secrets = new Secrets();
      secrets.add(TOKEN);
      const path = tmp.path('status.txt');
      const log = new StatusLog(path, leakyReport, { logger: silentLogger(), secrets });
      log[how]();
      // writeInSteps writes in later turns of the event loop.
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      const text = readFileSync(path, 'utf8');
      const json = readFileSync(tmp.path('status.json'), 'utf8');
      for (const out of [text, json]) {
        for (const form of [TOKEN, REVERSED, BASE64]) expectNoSecret(out, form);
        expect(out).toContain(REDACTED);
      }
      const parsed = JSON.parse(json) as StatusReport;
      expect(parsed.sinks?.[1]?.delivery.lastError).toBe(`HTTP 401: ${REDACTED}`);
      expect(parsed.terminals[1]?.lastError).toBe(`device said ${REDACTED}`);
      // The rest as it was: numbers, times and words.
      expect(parsed.punches).toEqual(counts);
      expect(parsed.generatedAt).toBe(AT);
      log.stop();
    },
  );
});
