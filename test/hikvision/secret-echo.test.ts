import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { createLogger } from '../../src/util/logger.js';
import { expectNoSecret } from '../helpers/secret.js';
import { hikConfig, journalFixture, PASSWORD } from './helpers.js';

/**
 * A device that quotes back the password it was given, in the words of its error answer (an
 * ISAPI ResponseStatus). Found by an adversarial trial: the daemon's log line of the failed poll
 * (its message and its detail) held the password, as sent and in base64, while the status said
 * [REDACTED]: the device's words were scrubbed only where the status is written.
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function echoingDevice(): Promise<string> {
  const said = `wrong password ${PASSWORD} for admin, ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ statusCode: 4, statusString: said, subStatusCode: 'badParameters', errorMsg: said }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('a Hikvision device that quotes its password back in an error', () => {
  it('the poll result and the log keep no form of it', async () => {
    const url = await echoingDevice();
    const fx = journalFixture();
    cleanups.push(fx.cleanup);
    let logs = '';
    const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void (logs += s) } });
    const poller = new HikvisionPoller(
      hikConfig({ url }, { passwordFile: fx.passwordFile }),
      sourceDepsFor(fx.journal, logger, { now: () => Date.now() }),
      undefined,
      {},
    );
    cleanups.push(() => poller.close());
    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(logs).toContain('[REDACTED]');
    const all = [r.error, logs].join('\n');
    expectNoSecret(all, PASSWORD);
    expectNoSecret(all, Buffer.from(`admin:${PASSWORD}`).toString('base64').slice(8, 20));
  });
});
