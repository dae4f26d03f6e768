import { EXIT, ExitError } from '../util/exit-codes.js';

/**
 * Starts one of the demo's simulators on its fixed port. A port another program holds (most often
 * another demo still running) was a bare `listen EADDRINUSE` with exit 1, and the demo then hung
 * with the simulators it had already started (found by a new-user trial): now it is one line that
 * names the simulator, the port, how to find the program and how to move the demo, exit 75
 * (try again once the port is free). The caller stops what it started before.
 */
export async function startOnDemoPort<T>(
  sim: { what: string; address: string; key: string; demoConfig: string },
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw e;
    const port = sim.address.split(':').at(-1)!.replace(/\D.*$/, '');
    const why =
      code === 'EADDRINUSE'
        ? 'another program holds that port (another demo still running?)'
        : 'this user may not listen on that port';
    throw new ExitError(
      `the demo's ${sim.what} cannot listen on ${sim.address}: ${why}: find it with ss -ltnp 'sport = :${port}' ` +
        `and stop it, or copy ${sim.demoConfig}, set another port in ${sim.key} there and run punchgate demo --demo-config YOUR-COPY`,
      EXIT.TEMPFAIL,
    );
  }
}

/** Stops what was started when a later start failed, then passes the failure on. */
export async function stopAndThrow(
  started: ReadonlyArray<{ stop(): Promise<unknown> } | undefined>,
  e: unknown,
): Promise<never> {
  await Promise.all(started.map((s) => s?.stop()));
  throw e;
}
