import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { openClient } from '../../src/sources/biotime/client.js';
import { parseCursor, readTransactions, type BioCursor } from '../../src/sources/biotime/reader.js';
import type { Punch } from '../../src/punch.js';
import { silentLogger } from '../../src/util/logger.js';
import { expectedKeys, journalFixture, journalKeys, PASSWORD, startSim, ZONE } from './helpers.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('BioTime reader: reading and journalling overlap', () => {
  it('the next page is on the wire before a page is journalled (undici sends it only at the next check phase), and the cursor still comes with its punches', async () => {
    const sim = await startSim(450);
    const j = journalFixture();
    const client = await openClient({
      baseUrl: sim.url,
      username: 'admin',
      password: PASSWORD,
      auth: 'auto',
      timeoutMs: 5000,
    });
    cleanups.push(
      () => sim.stop(),
      j.cleanup,
      () => client.http.destroy(),
    );
    // The transaction list requests whose headers undici has written to the socket.
    let sent = 0;
    const onSend = (m: unknown) => {
      const path = (m as { request?: { path?: string } }).request?.path ?? '';
      if (path.startsWith('/iclock/api/transactions/')) sent++;
    };
    subscribe('undici:client:sendHeaders', onSend);
    cleanups.push(() => unsubscribe('undici:client:sendHeaders', onSend));
    const atCommit: { sent: number; cursor: BioCursor }[] = [];
    const read = await readTransactions({
      client,
      source: 'hq',
      pageSize: 100,
      mode: 'id',
      cursor: {},
      overlapMinutes: 1440,
      nowWall: '2099-01-01 00:00:00',
      accept: () => true,
      commit: (punches: Punch[], cursor: BioCursor) => {
        atCommit.push({ sent, cursor });
        return j.journal.ingest(punches, {
          timezone: ZONE,
          state: { terminal: 'hq', key: 'cursor', value: JSON.stringify(cursor) },
        });
      },
      log: silentLogger(),
      limits: { maxPages: 100, deadline: Infinity, monotonic: () => 0 },
      commitRows: 100,
    });
    expect(read).toMatchObject({ pages: 5, rows: 450, added: 450 });
    // Pages 1-4 are journalled each while the next one is asked for: its request already sent
    // (before: sent only after the commit, so the server started on it only then).
    expect(atCommit.map((c) => c.sent)).toEqual([2, 3, 4, 5, 5]);
    expect(atCommit.map((c) => c.cursor.id)).toEqual([100, 200, 300, 400, 450]);
    expect(parseCursor(j.journal.sourceState.get('hq', 'cursor')).id).toBe(450);
    expect(journalKeys(j.journal)).toEqual(expectedKeys(sim.table.all()));
  });
});
