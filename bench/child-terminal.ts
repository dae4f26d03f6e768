/**
 * One or more ZK terminal simulators (startTerminalSim) in their own process, so that their
 * pacing timers and encoding do not share the event loop of the client under test.
 */
import { wallClockAt } from '../src/punch.js';
import { startTerminalSim, type TerminalFaults, type TerminalSim } from '../src/sim/terminal/index.js';
import { announceFailure, announceReady, childArgs, serve } from './lib/child-rpc.js';

export interface TerminalSpec {
  users: number;
  punches: number;
  faults?: Partial<TerminalFaults>;
  serialNumber?: string;
  /** First generated punch (default the generator's); give terminals different ones so their logs differ. */
  startTime?: string;
}

export interface TerminalChildReady {
  ports: number[];
}

/** A real-time punch made on request, with the moment it was made (epoch ms). */
export interface MadePunch {
  userId: string;
  logTime: string;
  at: number;
}

const { terminals } = childArgs<{ terminals: TerminalSpec[] }>();
const sims: TerminalSim[] = [];
let turn = 0;

function sim(m: Record<string, unknown>): TerminalSim {
  const s = sims[Number(m.index ?? 0)];
  if (!s) throw new Error(`no terminal ${String(m.index)}`);
  return s;
}

try {
  for (const t of terminals) {
    sims.push(
      await startTerminalSim({
        generate: { users: t.users, punches: t.punches, ...(t.startTime ? { startTime: t.startTime } : {}) },
        faults: t.faults ?? {},
        ...(t.serialNumber ? { serialNumber: t.serialNumber } : {}),
      }),
    );
  }
  serve(
    {
      setFaults: (m) => sim(m).setFaults(m.faults as Partial<TerminalFaults>),
      count: (m) => sim(m).punches().length,
      /** A punch now, at the box's wall clock, by the next user in turn: pushed to real-time subscribers. */
      punch: (m): MadePunch => {
        const s = sim(m);
        const users = s.users();
        const user = users[turn++ % users.length];
        if (!user) throw new Error('the terminal has no users');
        const at = Date.now();
        const logTime = wallClockAt(at);
        s.addPunch({ userId: user.userId, logTime, verifyType: 1, state: 0 });
        return { userId: user.userId, logTime, at };
      },
    },
    async () => {
      await Promise.all(sims.map((s) => s.stop()));
    },
  );
  announceReady({ ports: sims.map((s) => s.port) } satisfies TerminalChildReady);
} catch (e) {
  announceFailure(e);
  process.exit(1);
}
