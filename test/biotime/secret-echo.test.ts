import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { BiotimePoller } from '../../src/sources/biotime/index.js';
import { createLogger } from '../../src/util/logger.js';
import { expectNoSecret } from '../helpers/secret.js';
import { bioConfig, journalFixture } from './helpers.js';

/**
 * A server that quotes back what it was given: the password in a refused login, its own token in
 * a failing read, however it escapes them. Neither may reach the result, the log or the ledger
 * (found by an adversarial trial: the password, JSON-escaped in the raw body, passed the scrubbing
 * and was unescaped into the words quoted).
 */
const PASSWORD = 'pa"ss\\w0rd';
const TOKEN = 'SECRETTOKEN0123456789abcdefXYZ';

type Answer = { status: number; type?: string; body: string };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fakeServer(answers: { login: Answer; read: Answer }): Promise<string> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = /token-auth/.test(req.url ?? '') ? answers.login : answers.read;
      res.writeHead(a.status, { 'content-type': a.type ?? 'application/json' });
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

async function pollOnce(answers: { login: Answer; read: Answer }): Promise<string> {
  const url = await fakeServer(answers);
  const j = journalFixture();
  cleanups.push(j.cleanup);
  let logs = '';
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void (logs += s) } });
  const poller = new BiotimePoller(bioConfig({ url }), { ...j.deps, logger }, undefined, {
    PUNCHGATE_TERMINAL_HQ_PASSWORD: PASSWORD,
  });
  cleanups.push(() => poller.destroy());
  const r = await poller.poll();
  expect(r.ok).toBe(false);
  const ledger = j.journal.terminals.get('hq');
  return [r.error, JSON.stringify(ledger), logs].join('\n');
}

const tokenOk: Answer = { status: 200, body: JSON.stringify({ token: TOKEN }) };
const readOk: Answer = { status: 200, body: JSON.stringify({ count: 0, next: null, data: [] }) };

/** Every form a secret may be quoted in, as the server wrote it or as a log line escapes it. */
function expectNowhere(text: string, secret: string): void {
  for (const form of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])
    expectNoSecret(text, form);
}

describe('BioTime: a server that quotes a secret back', () => {
  const echoes: Array<[string, Answer]> = [
    [
      'JSON-escaped',
      {
        status: 400,
        body: JSON.stringify({ non_field_errors: [`Unable to log in with provided credentials: ${PASSWORD}`] }),
      },
    ],
    [
      'URL-encoded',
      { status: 400, body: JSON.stringify({ detail: `bad login: password=${encodeURIComponent(PASSWORD)}` }) },
    ],
    ['in an HTML page', { status: 401, type: 'text/html', body: `<html><title>No: pa&quot;ss\\w0rd</title></html>` }],
    ['cut across the quote limit', { status: 400, body: JSON.stringify({ detail: `${'x'.repeat(115)} ${PASSWORD}` }) }],
  ];
  for (const [how, login] of echoes)
    it(`the password echoed by a refused login (${how}) is nowhere`, async () => {
      const all = await pollOnce({ login, read: readOk });
      expect(all).toContain('refuses the username and password');
      expectNowhere(all, PASSWORD);
      expectNoSecret(all, 'ss\\w0rd');
    });

  it('the token quoted by a failing read (as sent, and in a JSON-escaped header) is nowhere', async () => {
    for (const detail of [`Invalid header: JWT ${TOKEN}`, `bad Authorization "JWT ${TOKEN.slice(0, 20)}"`]) {
      const all = await pollOnce({ login: tokenOk, read: { status: 500, body: JSON.stringify({ detail }) } });
      expect(all).toContain('HTTP 500');
      expectNowhere(all, TOKEN);
      expectNoSecret(all, TOKEN.slice(0, 12));
    }
  });

  it('the token quoted by a refused read (403, and a code in a 200 page) is nowhere', async () => {
    for (const read of [
      { status: 403, body: JSON.stringify({ detail: `API not licensed for Token ${TOKEN}` }) },
      { status: 200, body: JSON.stringify({ code: 1, msg: `token ${TOKEN} unknown` }) },
    ]) {
      const all = await pollOnce({ login: tokenOk, read });
      expectNowhere(all, TOKEN);
      expectNoSecret(all, TOKEN.slice(0, 12));
    }
  });
});
