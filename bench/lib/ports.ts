import { createServer } from 'node:net';

/**
 * A TCP port free on loopback now, for a child process that must be told its port before it
 * starts (a config file): the port is closed again at once, so a race with another program is
 * possible but harmless on a test machine. Servers in this process listen on port 0 instead.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
