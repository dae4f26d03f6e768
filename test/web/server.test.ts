import { createServer, type Server } from 'node:net';
import { writeFileSync } from 'node:fs';
import { Database } from '../../src/journal/sqlite-driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus, LatestReport } from '../../src/status/index.js';
import { systemClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { Secrets } from '../../src/util/secrets.js';
import { StatusWeb } from '../../src/web/index.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { expectNoSecret } from '../helpers/secret.js';

const STATUS_TOKEN = 'status-token-9d1e77a0c4';
const HRMS_TOKEN = 'hrms-token-51c0ffee42';
const COMM_KEY = 7316029;
const ENDPOINTS = ['/', '/status.json', '/metrics', '/livez', '/readyz'];

/** The status web of a daemon, in this process, over a real journal file and a real port. */
describe('status page server', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  let web: StatusWeb;
  let config: Config;
  let logs: string;
  let secrets: Secrets;

  const start = async (status: Record<string, unknown>) => {
    config = parseConfig(
      {
        site: 'plant-w',
        journal: { path: tmp.path('journal.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'hrms-token' },
        status: { listen: '127.0.0.1:0', intervalMs: 1000, ...status },
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '10.0.0.1', commKey: COMM_KEY },
          { name: 'door', kind: 'serial', path: '/dev/ttyUSB0', format: 'card' },
        ],
      },
      tmp.dir,
    );
    const reports = new LatestReport(() => buildStatus(journal, config, Date.now()), Date.now);
    web = new StatusWeb({
      journal,
      config: () => config,
      reports,
      live: () => true,
      ctx: {
        logger: createLogger({ destination: { write: (s: string) => void (logs += s) } }),
        clock: systemClock,
        secrets,
      },
    });
    await web.start();
    return web.url();
  };
  const get = async (path: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await fetch(new URL(path, web.url()), { headers, method });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const bearer = (t = STATUS_TOKEN) => ({ authorization: `Bearer ${t}` });
  const basic = (user: string, password: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
  });

  beforeEach(() => {
    tmp = tempDir('punchgate-web-');
    logs = '';
    secrets = new Secrets();
    secrets.add(HRMS_TOKEN);
    journal = Journal.open({ path: tmp.path('journal.db'), site: 'plant-w', mode: 'owner' });
  });
  afterEach(async () => {
    await web?.stop();
    journal.close();
    tmp.cleanup();
  });

  it('lets in only the token of status.authTokenFile, as bearer token or basic-auth password', async () => {
    writeFileSync(tmp.path('status-token'), `${STATUS_TOKEN}\n`);
    await start({ authTokenFile: 'status-token' });
    for (const path of ENDPOINTS) {
      const none = await get(path);
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm="punchgate"/);
      expect((await get(path, bearer('wrong-token'))).status, path).toBe(401);
      expect((await get(path, basic('admin', 'wrong-token'))).status, path).toBe(401);
      expect((await get(path, { authorization: STATUS_TOKEN })).status, path).toBe(401);
      expect((await get(path, bearer())).status, path).toBe(200);
      expect((await get(path, basic('admin', STATUS_TOKEN))).status, path).toBe(200);
      expect((await get(path, basic('', STATUS_TOKEN))).status, path).toBe(200);
    }
    // A new token in the file is taken at once; the old one no longer opens anything.
    writeFileSync(tmp.path('status-token'), 'a-new-status-token-3f\n');
    expect((await get('/metrics', bearer())).status).toBe(401);
    expect((await get('/metrics', bearer('a-new-status-token-3f'))).status).toBe(200);
    // An empty (or missing) file lets nobody in, and says so in the log.
    writeFileSync(tmp.path('status-token'), '\n');
    expect((await get('/', bearer(''))).status).toBe(401);
    expect((await get('/', bearer('a-new-status-token-3f'))).status).toBe(401);
    expect(logs).toMatch(/status-token is empty: nobody can open the status page/);
  });

  it('says a token file that lets nobody in at the start, with the fix, before anyone visits', async () => {
    // A new-user trial: a misspelt status.authTokenFile was said only at the first visit (which
    // the log of a box nobody visits never showed), and without what to do.
    await start({ authTokenFile: 'no-such-token' });
    expect(logs).toMatch(
      /no-such-token cannot be read \(ENOENT\): nobody can open the status page or \/metrics until it holds a token: put a token on one line in it/,
    );
  });

  it('serves nothing that carries a secret, and escapes outside text on the page', async () => {
    writeFileSync(tmp.path('status-token'), `${STATUS_TOKEN}\n`);
    await start({ authTokenFile: 'status-token' });
    // Outside text with secrets and markup in it, as a hostile HRMS or terminal could send.
    journal.terminals.update('gate-1', {
      online: false,
      lastPollAt: Date.now() - 600_000,
      offlineSince: Date.now() - 600_000,
      serial: `<script>alert(1)</script>`,
      // Comm keys never enter a message (the ZK client sends only their hash), so none is planted here:
      // the config's key must simply never be served.
      previousSerial: 'SN-OLD',
      lastError: `comm key refused <img src=x onerror=alert(2)>`,
    });
    journal.deliveryState.update({
      auth: 'failed',
      authFailedSince: Date.now() - 60_000,
      lastError: `Bearer token ${HRMS_TOKEN} is not correct "&' <b>`,
      lastErrorAt: Date.now(),
      lastResult: `echo ${STATUS_TOKEN}`,
    });
    const bodies: string[] = [];
    for (const path of [...ENDPOINTS, '/nothing-here']) {
      for (const headers of [{}, bearer(), bearer(HRMS_TOKEN)]) {
        const r = await get(path, headers);
        bodies.push(r.text, JSON.stringify([...r.headers]));
      }
    }
    const all = bodies.join('\n');
    expect(all).toContain('terminal gate-1 unreachable'); // the outside text is there, scrubbed
    for (const secret of [HRMS_TOKEN, String(COMM_KEY), STATUS_TOKEN]) expectNoSecret(all, secret);
    const page = (await get('/', bearer())).text;
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(page).toContain('&quot;&amp;&#39; &lt;b&gt;');
    expect(page).not.toMatch(/<script|<img|onerror=alert\(2\)>|<b>/);
    expect(logs).not.toContain(STATUS_TOKEN);
  });

  it('/readyz says why it is not ready: the token refused, the journal locked by another process', async () => {
    await start({});
    expect(await get('/readyz')).toMatchObject({ status: 200, text: 'ok\n' });
    expect(await get('/livez')).toMatchObject({ status: 200, text: 'ok\n' });
    journal.deliveryState.update({ auth: 'failed', authFailedSince: Date.UTC(2026, 10, 22, 9, 12) });
    const refused = await get('/readyz');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(refused.text).toBe(
      `not ready: HRMS refuses the token since 2026-11-22 09:12:00 +00:00: put a valid token in the file hrms.tokenFile names (${tmp.path('hrms-token')}), or in PUNCHGATE_HRMS_TOKEN (the file is re-read without a restart)\n`,
    );
    journal.deliveryState.update({ auth: 'ok', authFailedSince: null });
    expect((await get('/readyz')).status).toBe(200);

    const other = new Database(tmp.path('journal.db'));
    try {
      other.exec('BEGIN IMMEDIATE');
      const busy = await get('/readyz');
      expect(busy.status).toBe(503);
      expect(busy.text).toMatch(/^not ready: journal .*journal\.db is busy: another process holds its write lock\n$/);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect((await get('/readyz')).status).toBe(200);
    // The check took the lock and let it go: the journal still takes punches.
    expect(journal.ingest([{ terminal: 'gate-1', biometricCode: '7', logTime: '2026-11-22 08:00:00' }]).added).toBe(1);
  });

  it('answers GET and HEAD only, with 404 for unknown paths', async () => {
    await start({});
    const head = await get('/', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    const post = await get('/metrics', {}, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await get('/metrics?debug=1')).status).toBe(200);
    const missing = await get('/../../etc/passwd');
    expect(missing.status).toBe(404);
    const page = await get('/');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const json = await get('/status.json');
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(json.text)).toMatchObject({ site: 'plant-w', terminals: [{ name: 'gate-1' }, { name: 'door' }] });
  });

  it('status.listen false serves nothing; a reload that sets it starts serving', async () => {
    expect(await start({ listen: false })).toBeUndefined();
    config = { ...config, status: { ...config.status, listen: '127.0.0.1:0' } };
    await web.reload();
    expect(web.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await get('/metrics')).text).toContain('punchgate_punches_journaled_total');
  });

  it('a port in use is logged and retried, never a reason to stop', async () => {
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (squatter.address() as { port: number }).port;
      expect(await start({ listen: `127.0.0.1:${port}` })).toBeUndefined();
      await waitFor(
        () => /status page not served on 127\.0\.0\.1:\d+: the port is in use/.test(logs),
        20_000,
        'logged',
      );
      expect(logs).toMatch(/"retryInSeconds":5/);
    } finally {
      squatter.close();
    }
  });
});
