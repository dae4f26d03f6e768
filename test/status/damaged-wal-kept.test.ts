import { readdirSync, rmSync, utimesSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { localTime } from '../../src/util/local-time.js';
import { droppedWalCommits } from '../../src/journal/wal-frames.js';
import { cliSandbox } from '../helpers/cli.js';
import { damageWalFrame, walAfterPowerCut } from '../helpers/damaged-journal.js';

const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The log's last write before the power cut: the hours before it are the ones to import again. */
const LAST_WRITTEN = Date.parse('2026-11-03T09:15:00Z');

/**
 * A journal whose damaged write-ahead log punchgate run kept at its start (src/journal/damaged-wal.ts),
 * with the punches of its dropped writes not in the journal. Found by a trial: the daemon said it in
 * one log line, while `punchgate status`, the page and `punchgate check`, where an admin looks, said
 * nothing, so the punches of those hours were never imported again.
 */
function journalWithKeptLog() {
  const box = cliSandbox();
  cleanups.push(box.tmp.cleanup);
  const path = box.tmp.path('journal.db');
  const wal = walAfterPowerCut(path);
  damageWalFrame(wal);
  utimesSync(wal, LAST_WRITTEN / 1000, LAST_WRITTEN / 1000);
  // How many writes the open drops, as the daemon's line says it: the status says the same count.
  const lost = droppedWalCommits(wal)!.droppedCommits;
  expect(lost).toBeGreaterThan(1);
  Journal.open({ path, site: 'plant-a', mode: 'owner' }).close();
  const kept = readdirSync(box.tmp.dir).filter((f) => f.startsWith('journal.db.damaged-wal-'));
  expect(kept).toHaveLength(1);
  return { ...box, kept: box.tmp.path(kept[0]!), lost };
}

describe('a damaged write-ahead log kept beside the journal, in status and check', () => {
  it('status (text and JSON) and check say it, with the hours to import and the command that ends it; removing the copy clears it', async () => {
    const { cli, kept, lost } = journalWithKeptLog();
    const hours = `before ${localTime(LAST_WRITTEN)}`;
    const count = `the ${lost} writes after its damaged part`;

    const text = (await cli('status')).stdout;
    expect(text).toContain(kept);
    expect(text).toContain(count);
    expect(text).toContain(hours);
    expect(text).toContain('punchgate import');
    expect(text).toContain(`rm ${kept}`);

    const json = JSON.parse((await cli('status', '--json')).stdout) as {
      alertItems: { kind: string; cause: string; fix: string }[];
    };
    const alert = json.alertItems.find((a) => a.kind === 'journal-damaged-wal');
    expect(alert?.cause).toContain(count);
    expect(alert?.fix).toContain(`rm ${kept}`);

    const check = JSON.parse((await cli('check', '--json')).stdout) as {
      checks: { name: string; status: string; detail: string; fix?: string }[];
    };
    const line = check.checks.find((c) => c.fix?.includes(kept));
    expect(line).toMatchObject({ status: 'warn' });
    expect(line?.detail).toContain(localTime(LAST_WRITTEN));
    expect(line?.detail).toContain(count);
    expect(line?.fix).toContain(hours);
    expect(line?.fix).toContain(`rm ${kept}`);

    rmSync(kept);
    expect((await cli('status')).stdout).not.toContain('damaged-wal');
    const after = JSON.parse((await cli('check', '--json')).stdout) as { checks: { detail: string }[] };
    expect(after.checks.filter((c) => JSON.stringify(c).includes('damaged-wal'))).toEqual([]);
  });
});
