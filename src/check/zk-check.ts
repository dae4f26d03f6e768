import type { ZkTerminalConfig } from '../config/terminals.js';
import { wallClockAt, wallClockDiffSeconds } from '../punch.js';
import { ZkProtocolError } from '../sources/zk/client/index.js';
import { describeZkFault } from '../sources/zk/fault.js';
import { defaultClientFactory, type ClientFactory } from '../sources/zk/poll.js';
import type { TerminalRecord } from '../journal/types.js';
import type { Clock } from '../util/clock.js';
import { fail, pass, warn, type CheckResult } from './types.js';
import { boxIanaZone } from '../util/box-zone.js';

export interface ZkCheckDeps {
  clock: Clock;
  /** What punchgate run last recorded about this terminal (from the journal), if anything. */
  lastSeen?: TerminalRecord;
  /** How clients are made (tests point it at a simulator with their own options). */
  factory?: ClientFactory;
  /**
   * The address punchgate run polls this terminal at (from the config it loaded: its last good
   * copy), when it runs; undefined when it does not run (or does not poll this terminal). Check
   * judges the address in the file; the daemon's words ("reached it just now") are about the
   * address it runs, which differs while an edit waits for a reload.
   */
  runningAt?: { host: string; port: number };
}

/** Share of the attendance capacity above which the terminal's log is "nearly full". */
const NEARLY_FULL = 0.9;

/**
 * Reaches one ZK terminal as a poll would, without downloading or changing anything:
 * connect (and comm key), serial number, GET_FREE_SIZES, the clock compared with the box clock
 * read in the terminal's time zone, and the attendance log's download asked for (its size read,
 * the log itself not: DATA_WRRQ, then FREE_DATA), which push-only firmware refuses.
 */
export async function checkZkTerminal(cfg: ZkTerminalConfig, index: number, deps: ZkCheckDeps): Promise<CheckResult> {
  const name = `terminal ${cfg.name}`;
  const key = `terminals[${index}]`;
  const client = (deps.factory ?? defaultClientFactory)(cfg);
  const zone = cfg.timezone ?? boxIanaZone();
  try {
    await client.connect();
    const transport = client.transportKind ?? cfg.transport;
    const serial = (await client.getSerialNumber().catch(() => '')).trim();
    const firmware = await client.getFirmware().catch(() => '');
    // A terminal with no usable counts (a WL20 answers with one 4-byte 0) is still polled: say so.
    const info = await client.getInfo().catch((e: unknown) => {
      if (e instanceof ZkProtocolError) return null;
      throw e;
    });
    const terminalTime = await client.getTime();
    const skew = wallClockDiffSeconds(terminalTime, wallClockAt(deps.clock.now(), cfg.timezone));
    // The log's download asked and let go unread: a terminal that refuses it (push-only firmware)
    // passed every step above and failed every poll. Its refusal fails the check below. Not while
    // punchgate run reads this terminal at this address (its last poll, whole, minutes ago): its
    // download may be under way, and a second session's FREE_DATA is no business of it.
    if (!readByRunLately(cfg, deps)) await client.attendanceLogSize();
    await client.disconnect();

    const facts = [
      `${client.peer} over ${transport}`,
      `serial ${serial || 'unknown'}${firmware ? `, firmware ${firmware.trim()}` : ''}`,
      info ? `${info.users} user${info.users === 1 ? '' : 's'}` : 'no user or record counts reported',
      ...(info ? [`${info.records}${info.recordCapacity > 0 ? ` of ${info.recordCapacity}` : ''} records`] : []),
      `clock ${describeSkew(skew)} (${zone})`,
    ].join(', ');
    const problems: string[] = [];
    const fixes: string[] = [];
    if (Math.abs(skew) > cfg.skewThresholdSeconds) {
      problems.push(`the terminal clock is ${describeSkew(skew)}`);
      fixes.push(skewFix(skew, cfg, key, zone));
    }
    if (!info) {
      problems.push(
        'it does not report its record counts, so punchgate reads its whole log at every poll and never clears it',
      );
      fixes.push('clear its log at the terminal once punchgate status shows nothing pending for it');
    }
    if (info && info.recordCapacity > 0 && info.records / info.recordCapacity >= NEARLY_FULL) {
      problems.push(`its log is ${Math.floor((100 * info.records) / info.recordCapacity)} % full`);
      fixes.push(
        `let punchgate clear it once everything is delivered (${key}.clearAfterDays), or clear it on the terminal after checking that punchgate status shows nothing pending`,
      );
    }
    const moved = movedFrom(cfg, deps);
    if (moved) {
      problems.push(`punchgate run still polls ${moved} until it reloads the config`);
      fixes.push(`sudo systemctl reload punchgate so that it polls ${cfg.host}:${cfg.port}`);
    }
    const result =
      problems.length > 0 ? warn(name, `${facts}; ${problems.join('; ')}`, fixes.join('; ')) : pass(name, facts);
    return { ...result, ...(serial ? { serial } : {}), skewSeconds: skew };
  } catch (e) {
    client.destroy();
    const failed = describeFailure(e, name, key, client.peer, cfg);
    const moved = movedFrom(cfg, deps);
    if (!moved) return withDaemonHint(failed, cfg, key, deps);
    // What punchgate run reached was the old address: it says nothing of the new one.
    return {
      ...failed,
      detail: `${failed.detail}; punchgate run still polls the address it loaded, ${moved}, until it reloads the config`,
      fix: `${failed.fix ?? ''}; a reload (sudo systemctl reload punchgate) would move punchgate run to this failing address: correct ${key}.host/port first`,
    };
  }
}

/** The address punchgate run polls when the file says another ("10.0.0.5:4370"), else undefined. */
function movedFrom(cfg: ZkTerminalConfig, deps: ZkCheckDeps): string | undefined {
  const r = deps.runningAt;
  return r && (r.host !== cfg.host || r.port !== cfg.port) ? `${r.host}:${r.port}` : undefined;
}

/** Reached by punchgate run in the last 10 minutes. */
const RECENT_MS = 10 * 60_000;

/** punchgate run polls this terminal at this address and its last poll succeeded (its log read) within RECENT_MS. */
function readByRunLately(cfg: ZkTerminalConfig, deps: ZkCheckDeps): boolean {
  const last = deps.lastSeen?.lastSuccessAt;
  if (!deps.runningAt || movedFrom(cfg, deps) || last == null) return false;
  const ago = deps.clock.now() - last;
  return ago >= 0 && ago <= RECENT_MS;
}

/**
 * A terminal that allows one TCP session refuses a second one while punchgate run holds its
 * real-time session: say so, instead of sending the admin after the cable.
 */
function withDaemonHint(result: CheckResult, cfg: ZkTerminalConfig, key: string, deps: ZkCheckDeps): CheckResult {
  const last = deps.lastSeen?.lastSuccessAt;
  if (result.status !== 'fail' || !cfg.realtime || last == null || /comm key/.test(result.detail)) return result;
  // Only while punchgate run runs, polling this address: stopped, it holds no session, and "if
  // punchgate status shows it online, nothing is wrong" sent a new admin's port typo (or a dead
  // terminal) past the status log it left (found by a new-user trial).
  if (!deps.runningAt) return result;
  const ago = deps.clock.now() - last;
  if (ago < 0 || ago > RECENT_MS) return result;
  return {
    ...result,
    // Within the minute "just now", as the page says it: "0 min ago" read as a broken clock.
    detail: `${result.detail}; punchgate run reached it ${ago < 60_000 ? 'just now' : `${Math.round(ago / 60_000)} min ago`}`,
    fix: `punchgate run holds a real-time session with it (${key}.realtime: true) and many terminals allow only one: if punchgate status shows it online, nothing is wrong; otherwise ${result.fix ?? ''}`,
  };
}

function describeFailure(e: unknown, name: string, key: string, peer: string, cfg: ZkTerminalConfig): CheckResult {
  // Without the fault's own real-time hint: check says it itself, knowing when punchgate run last
  // reached the terminal (withDaemonHint, above).
  const f = describeZkFault(e, { ...cfg, realtime: false }, key, peer);
  // A protocol error keeps its detail here: check is where the admin looks closer.
  const detail = e instanceof ZkProtocolError ? `${f.cause}: ${e.message}` : f.cause;
  return fail(name, detail, f.fix);
}

/**
 * `in step`, `12 s ahead`, `5 min 3 s behind`, `2 h behind`. A second either way is in step: a
 * terminal tells its time in whole seconds, read over the network, so a reading a second off is
 * the reading's own error (a second boundary passed between the terminal's read and the box's).
 */
export function describeSkew(seconds: number): string {
  const s = Math.round(seconds);
  if (Math.abs(s) <= 1) return 'in step';
  const abs = Math.abs(s);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const sec = abs % 60;
  const text = h > 0 ? `${h} h${m ? ` ${m} min` : ''}` : m > 0 ? `${m} min${sec ? ` ${sec} s` : ''}` : `${sec} s`;
  return `${text} ${s > 0 ? 'ahead' : 'behind'}`;
}

function skewFix(skew: number, cfg: ZkTerminalConfig, key: string, zone: string): string {
  const abs = Math.abs(skew);
  // Whole half-hours apart (within a minute): the two clocks are probably read in different zones.
  const halfHours = Math.round(abs / 1800);
  if (halfHours >= 1 && Math.abs(abs - halfHours * 1800) <= 60) {
    return `a difference of whole hours usually means a time zone mismatch: set ${key}.timezone to the zone the terminal's clock shows (now ${zone}), or correct the terminal's clock`;
  }
  if (cfg.syncClock)
    return `punchgate run sets the terminal's clock at its next poll (${key}.syncClock is on); if it keeps drifting, check the terminal's clock battery`;
  return `set the terminal's clock, or set ${key}.syncClock: true so that punchgate run sets it at each poll`;
}
