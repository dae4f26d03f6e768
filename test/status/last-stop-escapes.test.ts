import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { lastStopPath, readLastStop, recordLastStop } from '../../src/status/last-stop.js';
import { markStatusLog } from '../../src/status/last-stop-mark.js';
import { statusJson } from '../../src/status/json.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Raw characters a screen acts on or hides that JSON.stringify leaves as they are. */
const RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b]/u;
/**
 * An unexpected crash's reason is the error's message, which may quote outside text (Node's JSON
 * and URL errors quote the input they choked on): a C1 CSI, a bidi override, a line separator.
 */
const REASON =
  'unexpected error: Unexpected token \u009b[2J\u202e in "\u2028FORGED\u200b"; exiting so that systemd restarts punchgate';

describe('why punchgate run stopped, written to its record and the status log’s status.json', () => {
  it('the record (journal.db.last-stop.json) holds no raw control or invisible character, and reads back the same reason', () => {
    const tmp = tempDir('punchgate-last-stop-');
    cleanups.push(tmp.cleanup);
    const journal = tmp.path('journal.db');
    recordLastStop(journal, { at: '2026-12-01T10:00:00.000Z', exitCode: 70, reason: REASON });
    expect(readFileSync(lastStopPath(journal), 'utf8')).not.toMatch(RAW);
    expect(readLastStop(journal)?.reason).toBe(REASON);
  });

  it('the marked status.json writes the reason as status --json does (escapeControls), no raw character', () => {
    const tmp = tempDir('punchgate-last-stop-');
    cleanups.push(tmp.cleanup);
    const statusPath = tmp.path('status.txt');
    writeFileSync(statusPath, 'punchgate status\n');
    writeFileSync(tmp.path('status.json'), statusJson({ site: 'plant-p' }));
    markStatusLog(statusPath, { at: '2026-12-01T10:00:00.000Z', exitCode: 70, reason: REASON });
    const marked = readFileSync(tmp.path('status.json'), 'utf8');
    expect(marked).not.toMatch(RAW);
    const json = JSON.parse(marked) as { site: string; daemon: { lastStop: { reason: string } } };
    expect(json.site).toBe('plant-p');
    expect(json.daemon.lastStop.reason).toContain('\\x9b[2J\\u202e in "\\u2028FORGED\\u200b"');
    expect(readFileSync(statusPath, 'utf8')).not.toMatch(RAW);
  });
});
