import type { DahuaTerminalConfig } from '../config/terminals.js';
import { wallClockAt, wallClockDiffSeconds } from '../punch.js';
import { nextTry, type Refusal } from '../sources/dahua/auth-gate.js';
import {
  DahuaClient,
  dahuaUrl,
  defaultDahuaClientFactory,
  describeDahuaFault,
  readDahuaPassword,
  type DahuaClientFactory,
} from '../sources/dahua/index.js';
import type { Clock } from '../util/clock.js';
import { clockVerdict, deviceWords, refusalStopsCheck, transportWords } from './http-terminal-check.js';
import { fail, type CheckResult } from './types.js';
import { describeSkew } from './zk-check.js';
import { boxIanaZone } from '../util/box-zone.js';

export interface DahuaCheckDeps {
  clock: Clock;
  /** A password refusal punchgate run recorded in the journal, if any. */
  refusal?: Refusal;
  factory?: DahuaClientFactory;
  env?: NodeJS.ProcessEnv;
}

/**
 * Reaches one Dahua terminal as a poll would, changing nothing: the address, the password, the
 * device's identity, its clock, how many records it holds, and that the record search answers.
 */
export async function checkDahuaTerminal(
  cfg: DahuaTerminalConfig,
  index: number,
  deps: DahuaCheckDeps,
): Promise<CheckResult> {
  const name = `terminal ${cfg.name}`;
  const key = `terminals[${index}]`;
  const zone = cfg.timezone ?? boxIanaZone();
  let client: DahuaClient | undefined;
  try {
    const pw = readDahuaPassword(cfg, deps.env);
    const now = deps.clock.now();
    const next = nextTry(deps.refusal, pw.changedAt, now);
    if (deps.refusal && next !== undefined) {
      return refusalStopsCheck(
        name,
        cfg.name,
        deps.refusal,
        next,
        `put the right password in ${pw.from}: punchgate run and check try it as soon as the file changes`,
      );
    }
    client = (deps.factory ?? defaultDahuaClientFactory)(cfg, pw.password);
    const info = await client.identity();
    const wall = await client.currentTime();
    const skew = wallClockDiffSeconds(wall, wallClockAt(deps.clock.now(), cfg.timezone));
    const count = await client.recordCount();
    let form = 'StartTime/EndTime';
    try {
      await client.recordPage(0, 1, 'plain');
    } catch {
      await client.recordPage(0, 1, 'condition');
      form = 'condition.StartTime/EndTime';
    }
    client.destroy();
    const facts = [
      `${dahuaUrl(cfg)}${transportWords(cfg.tls, Boolean(cfg.tlsFingerprint))}`,
      deviceWords(info.serial, info.deviceType, info.software),
      ...(count !== undefined ? [`${count} record${count === 1 ? '' : 's'} held`] : []),
      `record search by ${form}`,
      `clock ${describeSkew(skew)} (${zone})`,
    ].join(', ');
    return clockVerdict(
      name,
      facts,
      skew,
      cfg.skewThresholdSeconds,
      `set the terminal's clock (or NTP on it); if the difference is whole hours, set ${key}.timezone to the zone the terminal's clock shows (now ${zone})`,
    );
  } catch (e) {
    client?.destroy();
    const f = describeDahuaFault(e, cfg, key);
    return fail(name, f.cause, f.fix);
  }
}
