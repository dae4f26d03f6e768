/**
 * ZKTeco terminal simulator: speaks the ZK binary protocol on one port over TCP and UDP,
 * holds users and an attendance log, pushes real-time events, and injects faults on demand.
 * Used by `punchgate sim terminal` and by the tests of the ZK client, source and daemon.
 */
import { silentLogger } from '../../util/logger.js';
import { MAX_CHUNK } from '../../sources/zk/protocol/constants.js';
import { DatasetCache } from './dataset.js';
import { FaultSwitches } from './faults.js';
import { SessionIds } from './session-ids.js';
import type { SimContext } from './session-state.js';
import { TcpSide } from './tcp-server.js';
import { TerminalState } from './terminal-state.js';
import type { SimPunch, TerminalSim, TerminalSimOptions } from './types.js';
import { UdpSide } from './udp-server.js';

export type {
  SimFirmware,
  SimPunch,
  SimTemplate,
  SimUser,
  TerminalFaults,
  TerminalSim,
  TerminalSimOptions,
} from './types.js';
export { DEFAULT_FAULTS } from './faults.js';
export { DEFAULT_FIRMWARE, DEFAULT_SERIAL } from './terminal-state.js';
export { loadDataFiles, DataFileError, type LoadedData } from './data-file.js';

const BIND_ATTEMPTS = 20;

export async function startTerminalSim(opts: TerminalSimOptions = {}): Promise<TerminalSim> {
  const host = opts.host ?? '127.0.0.1';
  const useTcp = opts.tcp ?? true;
  const useUdp = opts.udp ?? true;
  if (!useTcp && !useUdp) throw new RangeError('the terminal simulator needs TCP, UDP or both');
  const state = new TerminalState(opts);
  const ctx: SimContext = {
    state,
    faults: new FaultSwitches(opts.faults),
    logger: opts.logger ?? silentLogger(),
    directThreshold: opts.directThreshold ?? 1024,
    chunkSize: Math.max(1, opts.chunkSize ?? MAX_CHUNK),
    datasets: new DatasetCache(),
  };
  const ids = new SessionIds();
  const { tcp, udp, port } = await bindBoth(ctx, ids, host, opts.port ?? 0, useTcp, useUdp);

  const unsubscribe = state.onPunch((p) => {
    for (const side of [tcp, udp]) {
      if (!side) continue;
      for (const pump of side.allPumps()) {
        const unit = pump.session.eventFor(p);
        if (unit) pump.event(unit);
      }
    }
  });

  let timer: NodeJS.Timeout | null = null;
  const stopPunching = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  return {
    port,
    host,
    punches: () => state.punches(),
    users: () => state.users(),
    templates: () => state.people.templatesByUserId(),
    deviceEnabled: () => state.enabled,
    refreshCount: () => state.refreshCount,
    writeCount: () => state.writeCount,
    addPunch: (p) => void state.addPunch(p),
    startPunching(everyMs, pick) {
      if (!Number.isFinite(everyMs) || everyMs <= 0) throw new RangeError(`punch interval must be > 0 ms: ${everyMs}`);
      const next = pick ?? defaultPicker(state, opts.generate?.seed ?? 1);
      stopPunching();
      timer = setInterval(() => {
        try {
          const p = state.addPunch(next());
          ctx.logger.info({ userId: p.userId, logTime: p.logTime, verifyType: p.verifyType, state: p.state }, 'punch');
        } catch (e) {
          ctx.logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'punch not made');
        }
      }, everyMs);
    },
    stopPunching,
    setFaults: (f) => ctx.faults.update(f),
    setSerialNumber: (sn) => {
      state.serialNumber = sn;
    },
    clearCount: () => state.clearAttlogCount,
    disableCount: () => state.disableCount,
    sessions: () => tcp?.count() ?? 0,
    async stop() {
      stopPunching();
      unsubscribe();
      await Promise.all([tcp?.close(), udp?.close()]);
    },
  };
}

/**
 * Users in turn, at the terminal's clock, each alternating in and out, from the user the seed
 * names: two simulators started together with their own
 * seeds (as the docs ask) punch different codes at each tick. From the first user for every seed,
 * they punched the same code in the same second, and the HRMS answered "already exists" for every
 * live punch of one of them (a new-user rehearsal with seeds 1 and 2).
 */
function defaultPicker(state: TerminalState, seed: number): () => SimPunch {
  let i = Math.max(0, seed - 1);
  const last = new Map<string, number>();
  return () => {
    const users = state.userView();
    const user = users[i++ % Math.max(1, users.length)];
    if (!user) throw new RangeError('the terminal has no users to punch');
    const s = last.get(user.userId) === 0 ? 1 : 0;
    last.set(user.userId, s);
    return { userId: user.userId, logTime: state.clock.read(), verifyType: 1, state: s };
  };
}

/** TCP and UDP on the same port; with port 0, retries until a port is free on both. */
async function bindBoth(
  ctx: SimContext,
  ids: SessionIds,
  host: string,
  port: number,
  useTcp: boolean,
  useUdp: boolean,
) {
  let lastError: unknown;
  for (let attempt = 0; attempt < (port === 0 ? BIND_ATTEMPTS : 1); attempt++) {
    const tcp = useTcp ? new TcpSide(ctx, ids) : null;
    const udp = useUdp ? new UdpSide(ctx, ids) : null;
    try {
      let bound = port;
      if (tcp) bound = await tcp.listen(port, host);
      if (udp) bound = await udp.bind(bound, host);
      return { tcp, udp, port: bound };
    } catch (e) {
      lastError = e;
      await Promise.all([tcp?.close(), udp?.close()]);
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') break;
    }
  }
  throw lastError;
}
