import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { createLogger } from '../../src/util/logger.js';
import { expectNoSecret } from '../helpers/secret.js';
import { dahuaConfig, journalFixture, PASSWORD } from './helpers.js';

/**
 * A device that quotes back the password it was given, in the `Error` text of its answer. Found by
 * an adversarial trial: the daemon's log line of the failed poll held the password, as sent and in
 * base64, while the status said [REDACTED].
 */
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function echoingDevice(): Promise<number> {
  const said = `wrong password ${PASSWORD} for admin ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`Error\r\n${said}\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as { port: number }).port;
}

describe('a Dahua device that quotes its password back in an error', () => {
  it('the poll result and the log keep no form of it', async () => {
    const port = await echoingDevice();
    const fx = journalFixture();
    cleanups.push(fx.cleanup);
    let logs = '';
    const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void (logs += s) } });
    const poller = new DahuaPoller(
      dahuaConfig({ port }, { passwordFile: fx.passwordFile }),
      sourceDepsFor(fx.journal, logger, { now: () => Date.now() }),
      undefined,
      {},
    );
    cleanups.push(() => poller.destroy?.());
    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(logs).toContain('[REDACTED]');
    const all = [r.error, logs].join('\n');
    expectNoSecret(all, PASSWORD);
    expectNoSecret(all, Buffer.from(`admin:${PASSWORD}`).toString('base64').slice(8, 20));
  });
});
