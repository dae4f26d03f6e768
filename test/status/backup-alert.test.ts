import { describe, expect, it } from 'vitest';
import { backupAlert } from '../../src/status/backup.js';
import type { BackupStatus } from '../../src/status/types.js';

const DAY = 86_400_000;
const now = Date.parse('2026-12-01T02:00:00Z');
const made = (at: number): BackupStatus => ({
  lastAt: new Date(at).toISOString(),
  path: '/var/lib/punchgate/backups/b.db',
  punches: 10,
  alertAfterDays: 2,
});

describe('the backup alert and the box clock', () => {
  it('a record dated days ahead of the clock is an alert (it would never grow old), a few hours ahead is not', () => {
    const ahead = backupAlert(made(now + 30 * DAY), now);
    expect(ahead?.kind).toBe('backup-unknown');
    expect(ahead?.cause).toContain('30 days ahead of this box');
    expect(ahead?.fix).toContain('timedatectl');
    expect(backupAlert(made(now + 3 * 3_600_000), now)).toBeUndefined();
    expect(backupAlert(made(now - DAY), now)).toBeUndefined();
    expect(backupAlert(made(now - 3 * DAY), now)?.kind).toBe('backup-old');
  });
});
