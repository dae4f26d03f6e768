import { SIM_TERMINALS, startBiotimeSim, transaction, type BiotimeSim } from '../sim/biotime/index.js';
import { startDahuaSim, type DahuaSim } from '../sim/dahua/index.js';
import { startOnDemoPort, stopAndThrow } from './port-taken.js';

/** The demo's terminals that punchgate reads over HTTP: a BioTime server and a Dahua terminal. */
export interface DemoHttpTerminals {
  started: string[];
  stop(): Promise<void>;
}

interface Terminal {
  name: string;
  kind: string;
  baseUrl?: string;
  host?: string;
  port?: number;
}

/**
 * Starts a simulated BioTime server and a simulated Dahua terminal where the demo config puts
 * them, each with a punch every few seconds (codes 4001.. and 5001..: the first digit tells the
 * summary which terminal punched). Their clocks are UTC, as the demo config's terminals say.
 */
export async function startDemoHttpTerminals(o: {
  terminals: readonly Terminal[];
  passwords: { biotime?: string | undefined; dahua?: string | undefined };
  codes: { biotime: number; dahua: number };
  punchEveryMs: number;
  say: (who: string, line: string) => void;
  /** The demo config, named in the message when a simulator's port is taken (port-taken.ts). */
  demoConfig: string;
}): Promise<DemoHttpTerminals> {
  const timers: NodeJS.Timeout[] = [];
  const sims: Array<BiotimeSim | DahuaSim> = [];
  const started: string[] = [];
  const every = (ms: number, f: (n: number) => void) => {
    let n = 0;
    timers.push(setInterval(() => f(n++), ms));
  };
  const bio = o.terminals.find((t) => t.kind === 'biotime');
  if (bio?.baseUrl) {
    const port = Number(new URL(bio.baseUrl).port);
    const sim = await startOnDemoPort(
      {
        what: 'BioTime server simulator',
        address: `127.0.0.1:${port}`,
        key: `${bio.name}'s baseUrl`,
        demoConfig: o.demoConfig,
      },
      () => startBiotimeSim({ host: '127.0.0.1', port, username: 'admin', password: o.passwords.biotime! }),
    );
    sims.push(sim);
    started.push(`BioTime server simulator on ${sim.url} (${bio.name})`);
    every(o.punchEveryMs * 1.3, (n) => {
      const emp = String(o.codes.biotime + (n % 3));
      sim.add([
        transaction({ emp, atMs: Date.now(), terminal: SIM_TERMINALS[n % 2]!, state: n % 2, verify: 15 }, 0, 'UTC'),
      ]);
      o.say('biotime', `terminal ${SIM_TERMINALS[n % 2]!.sn}: user ${emp} punched (on the BioTime server)`);
    });
  }
  const dahua = o.terminals.find((t) => t.kind === 'dahua');
  if (dahua?.port) {
    const port = dahua.port;
    const sim = await startOnDemoPort(
      {
        what: 'Dahua terminal simulator',
        address: `127.0.0.1:${port}`,
        key: `${dahua.name}'s port`,
        demoConfig: o.demoConfig,
      },
      () =>
        startDahuaSim({
          host: '127.0.0.1',
          port,
          username: 'admin',
          password: o.passwords.dahua!,
          utcOffsetMinutes: 0,
        }),
    ).catch(async (e: unknown) => {
      timers.forEach(clearInterval);
      return stopAndThrow(sims, e);
    });
    sims.push(sim);
    started.push(`Dahua terminal simulator on ${sim.url} (${dahua.name})`);
    every(o.punchEveryMs * 1.9, (n) => {
      const user = String(o.codes.dahua + (n % 3));
      sim.addRecords([
        { UserID: user, CardName: `Dahua User ${(n % 3) + 1}`, Type: n % 2 ? 'Exit' : 'Entry', Method: 15, Status: 1 },
      ]);
      o.say('dahua', `user ${user} punched (face)`);
    });
  }
  return {
    started,
    stop: async () => {
      timers.forEach(clearInterval);
      await Promise.all(sims.map((s) => s.stop()));
    },
  };
}
