import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { keepRestartOnly, restartOnlyChanges } from '../../src/daemon/restart-only.js';

const base = (): Config =>
  parseConfigText(
    readFileSync('config/punchgate.example.yaml', 'utf8'),
    '/etc/punchgate/punchgate.yaml',
    '/etc/punchgate',
  );

/** What a reload cannot apply stays pending, reload after reload, until a restart. */
describe('settings a reload cannot apply', () => {
  it('are named, kept at their running values, and still pending at the next reload', () => {
    const running = base();
    const next = base();
    next.site = 'plant-z';
    next.journal.pastToleranceHours = 48;
    next.journal.retentionDays = 30;
    next.status.intervalMs = 5000;
    const keys = restartOnlyChanges(running, next);
    expect(keys).toEqual(['site', 'journal.pastToleranceHours', 'status.intervalMs']);
    const applied = keepRestartOnly(running, next);
    // What a reload applies is applied (the prune reads retentionDays); the rest keeps running.
    expect(applied.journal.retentionDays).toBe(30);
    expect(applied.journal.pastToleranceHours).toBe(running.journal.pastToleranceHours);
    expect(applied.status.intervalMs).toBe(running.status.intervalMs);
    // The same file reloaded again: the same settings still wait (not forgotten at the second SIGHUP).
    expect(restartOnlyChanges(applied, next)).toEqual(keys);
    expect(restartOnlyChanges(applied, base())).toEqual([]);
  });
});
