import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { readNotes } from '../../src/sources/biotime/notes.js';
import { bioConfig, journalFixture, passwordEnv } from './helpers.js';

/**
 * A server at baseUrl that answers the token request with more than any token (a Content-Length of
 * 1 GB that never comes): found by an adversarial trial, the status said "a poll ended early; what
 * was read is kept and the next poll goes on from there", words for a page of transactions cut at
 * its bound, and kept saying it after, although nothing was ever read. It is no token: baseUrl's trouble.
 */
describe('BioTime: a token answer larger than any token', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('is said as an answer that is no token, with the baseUrl fix; no "poll ended early" note', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '999999999' });
      res.write('{"token":');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => (server.closeAllConnections(), new Promise((r) => server.close(r))));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const j = journalFixture();
    cleanups.push(j.cleanup);
    const poller = new BiotimePoller(bioConfig({ url }), j.deps, undefined, passwordEnv());
    cleanups.push(() => poller.destroy());

    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/token request/);
    expect(readNotes(j.journal.sourceState, 'hq').map((n) => n.topic)).not.toContain('poll');
    expect(j.deps.ledger.get('hq')?.lastErrorFix).toMatch(/baseUrl/);
  });
});
