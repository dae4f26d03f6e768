import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { parsePage } from '../../src/sources/biotime/client.js';
import { createLogger } from '../../src/util/logger.js';
import { bioConfig, journalFixture, journalKeys, passwordEnv } from './helpers.js';

/**
 * A transaction list with items that are no transaction (null, a string, a number: a broken
 * server or a stranger at its address, found by an adversarial trial): they were left out
 * without a word. They are left out and said; the transactions around them are kept.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const row = (id: number) => ({
  id,
  emp_code: String(7000 + id),
  punch_time: `2026-11-02 09:0${id}:00`,
  punch_state: '0',
  verify_type: 1,
  terminal_sn: 'BT-TERM-1',
  terminal_alias: 'Gate',
});

describe('BioTime: list items that are no transaction', () => {
  it('are counted by the page reader, the transactions kept', () => {
    const page = parsePage(JSON.stringify({ count: 4, next: null, data: [null, row(1), 'x', 3] }), 'srv', (s) => s);
    expect(page.rows).toHaveLength(1);
    expect(page.notRows).toBe(3);
    expect(parsePage(JSON.stringify([row(1), null]), 'srv', (s) => s).notRows).toBe(1);
  });

  it('are said in the log with the terminal, the transactions around them journalled', async () => {
    const send = (res: ServerResponse, body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/jwt-api-token-auth/') return send(res, { token: 'tok' });
      const after = Number(url.searchParams.get('id__gt') ?? 0);
      send(res, { count: 4, next: null, data: after > 0 ? [] : [row(1), null, 'gone', row(2)] });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
    const j = journalFixture();
    cleanups.push(j.cleanup);
    const raw: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => raw.push(l) } });
    const poller = new BiotimePoller(
      bioConfig({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, { timezone: 'UTC' }),
      { ...j.deps, logger },
      undefined,
      passwordEnv(),
    );
    cleanups.push(() => poller.destroy());
    const r = await poller.poll();
    expect(r, r.error).toMatchObject({ ok: true, added: 2 });
    expect(journalKeys(j.journal)).toHaveLength(2);
    expect(raw.join('')).toMatch(/hq: the server's transaction list held 2 items that are no transaction/);
  });
});
