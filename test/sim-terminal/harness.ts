import { afterEach } from 'vitest';
import { startTerminalSim, type TerminalSim, type TerminalSimOptions } from '../../src/sim/terminal/index.js';
import { RawTcp, RawUdp } from './raw-client.js';

/** A simulator and raw clients for one test each; all closed after every test. */
export function useTerminalSim(): {
  start: (opts: TerminalSimOptions) => Promise<TerminalSim>;
  tcp: () => Promise<RawTcp>;
  udp: () => Promise<RawUdp>;
  readonly sim: TerminalSim;
} {
  let current: TerminalSim | null = null;
  const clients: { close(): void }[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await current?.stop();
    current = null;
  });
  const track = <C extends { close(): void }>(c: C) => (clients.push(c), c);
  return {
    start: async (opts) => (current = await startTerminalSim(opts)),
    tcp: async () => track(await RawTcp.open(current!.port)),
    udp: async () => track(await RawUdp.open(current!.port)),
    get sim() {
      return current!;
    },
  };
}
