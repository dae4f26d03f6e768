import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port free on loopback now, for a child process that must be told its port before it
 * starts (a config file). It is taken below the kernel's ephemeral range: a port the kernel hands
 * to a `listen(0)` or an outgoing connection comes from that range, so a simulator started after
 * this call (200 ZK terminals on port 0, say) can never be given the same port before the child
 * binds it, as happened with a port from inside the range (the bench scraped a ZK simulator for
 * /metrics). Random within the range below, checked by listening on it, then closed again.
 * Servers in this process listen on port 0 instead.
 */
export async function freePort(): Promise<number> {
  const [low, high] = outsideEphemeral();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port found between ${low} and ${high}`);
}

/** Ports [low, high) below the ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range). */
function outsideEphemeral(): [number, number] {
  let first = 32768;
  try {
    first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || first;
  } catch {
    // not Linux: the IANA ephemeral range starts at 49152; below 32768 is outside both
  }
  const high = Math.min(first, 32768);
  return [Math.max(1024, high - 12_000), high];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
