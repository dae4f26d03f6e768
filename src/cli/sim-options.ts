/**
 * The parts every `punchgate sim <server>` command repeats: checking option values given as text
 * (a bad one exits 78 naming the option), collecting a repeatable option, starting the simulator
 * (a port that cannot be had exits 75), its log on stderr, new data every few seconds, and
 * stopping it when asked.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EXIT, ExitError } from '../util/exit-codes.js';
import type { ConsoleIo } from './common.js';
import { int } from './option-values.js';

/** A bad option value: exit 78, the message names the option (never a secret value). */
export const badOption = (msg: string) => new ExitError(msg, EXIT.CONFIG);

/** A whole number in min..max given as text, or undefined when the option is absent. */
export function intText(
  name: string,
  v: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
    throw badOption(`${name}: must be an integer from ${min} to ${max}`);
  return Number(v);
}

/** A probability 0..1 given as text (a fault rate), or undefined when the option is absent. */
export function rateText(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !(n >= 0 && n <= 1)) throw badOption(`${name}: must be a number from 0 to 1`);
  return n;
}

/** Commander's collector of a repeatable option. */
// No default list given to commander: it would show "(default: [])" in --help.
export const collect = (v: string, prev: string[] = []) => [...prev, v];

/**
 * Starts a simulator on host:port: a port taken or not allowed exits 75 (try again or another
 * port), any other refusal (a bad option the simulator found) exits 78.
 */
export async function startSimOrExit<S>(host: string, port: string, start: () => Promise<S>): Promise<S> {
  try {
    return await start();
  } catch (e) {
    if (e instanceof ExitError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES')
      throw new ExitError(`cannot listen on ${host}:${port}: ${code}`, EXIT.TEMPFAIL);
    throw badOption(e instanceof Error ? e.message : String(e));
  }
}

/**
 * Starts a device simulator (terminal, BioTime server) on host:port: any refusal exits 75
 * (`cannot listen on HOST:PORT: why`).
 */
export function listenOrTempfail<S>(host: string, port: number, starting: Promise<S>): Promise<S> {
  return starting.catch((e: unknown) => {
    throw new ExitError(`cannot listen on ${host}:${port}: ${(e as Error).message}`, EXIT.TEMPFAIL);
  });
}

/** A simulator's log line on stderr, led by its time (ISO 8601, UTC). */
export const timedLog =
  (io: Pick<ConsoleIo, 'err'>) =>
  (line: string): void =>
    io.err(`${new Date().toISOString()} ${line}\n`);

/**
 * Runs `tick` (new data: a record, an event) every `everySeconds` when given, until the stop
 * signal; then stops the simulator; exit 0.
 */
export async function tickUntilStopped(
  io: Pick<ConsoleIo, 'until'>,
  sim: { stop: () => Promise<void> },
  everySeconds: number | undefined,
  tick: () => void,
): Promise<number> {
  const timer = everySeconds ? setInterval(tick, everySeconds * 1000) : undefined;
  await io.until;
  clearInterval(timer);
  await sim.stop();
  return EXIT.OK;
}

/**
 * Starts a server simulator (HRMS, Frappe) with its log on stderr (`timedLog`), says where it
 * listens (`NAME simulator listening on URL`), and serves until the stop signal.
 */
export async function serveSim<S extends { url: string; stop: () => Promise<void> }>(
  o: { host: string; port: string },
  io: ConsoleIo,
  name: string,
  start: (log: (line: string) => void) => Promise<S>,
): Promise<number> {
  const sim = await startSimOrExit(o.host, o.port, () => start(timedLog(io)));
  io.out(`${name} simulator listening on ${sim.url}\n`);
  return serveUntilStopped(io, sim, name);
}

/** Waits for the stop signal, stops the simulator and says so on stderr; exit 0. */
export async function serveUntilStopped(
  io: { err: (text: string) => void; until: Promise<void> },
  sim: { stop: () => Promise<void> },
  name: string,
): Promise<number> {
  await io.until;
  await sim.stop();
  io.err(`${name} simulator stopped\n`);
  return EXIT.OK;
}

/** A file a simulator is told to read (a password, a certificate): one it cannot read exits 66 naming it. */
export function readSimFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ExitError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, EXIT.NOINPUT);
  }
}

/** The password of a --password-file: its first line, trimmed. */
export function passwordFromFile(file: string): string {
  return (readSimFile(file).split(/\r?\n/)[0] ?? '').trim();
}

/**
 * The options a device simulator with an account (Dahua, Hikvision, BioTime) takes first: where
 * it listens, and its account (`account` says whose: "the device account"...).
 */
export function withListenAndAccount(
  cmd: Command,
  o: { port: number; account: string; username: string; defaultPassword: string },
): Command {
  return cmd
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0: any free one)', int(0, 65535), o.port)
    .option('--username <name>', o.account, o.username)
    .option('--password <password>', `its password (default ${o.defaultPassword})`)
    .option('--password-file <file>', 'read the password from a file (first line)');
}

/** The password given: the first line of --password-file, else --password (undefined: the simulator's default). */
export const givenPassword = (o: { password?: string; passwordFile?: string }): string | undefined =>
  o.passwordFile ? passwordFromFile(o.passwordFile) : o.password;
