/** The terminals a user command works on, and the adapter for each kind. */
import type { Config } from '../config/schema.js';
import { configKeyIn, type TerminalConfig, type ZkTerminalConfig } from '../config/terminals.js';
import { PushStore } from '../journal/push-store.js';
import { sourceDepsFor } from '../sources/deps.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { silentLogger } from '../util/logger.js';
import type { UserSyncAdapter } from './adapter.js';
import type { UserCommandDeps } from './command-deps.js';
import { DahuaSyncAdapter } from './dahua/dahua-sync.js';
import { HikSyncAdapter } from './hikvision/hik-sync.js';
import { PushSyncAdapter } from './push/push-sync.js';
import { ZkSyncAdapter } from './zk/zk-sync.js';
import { ZkUserTerminal } from './zk/zk-terminal.js';

/** Kinds whose users punchgate can manage: ZK (TCP/UDP), push (ADMS), Hikvision (ISAPI) and Dahua (CGI) terminals. */
const USER_KINDS = new Set(['zk', 'adms', 'hikvision', 'dahua']);

/**
 * Named terminals (each must exist and hold users), or without names every enabled one that
 * holds users. Throws ExitError(78) for a name the config does not have.
 */
export function selectTerminals(
  config: Config,
  names: readonly string[] | undefined,
  option = '--terminal',
): TerminalConfig[] {
  if (!names || names.length === 0) return config.terminals.filter((t) => t.enabled && USER_KINDS.has(t.kind));
  return names.map((n) => {
    const t = config.terminals.find((x) => x.name === n);
    if (!t) throw new ExitError(`${option} ${n}: no terminal of that name in the config`, EXIT.CONFIG);
    if (!USER_KINDS.has(t.kind))
      throw new ExitError(`${option} ${n}: a ${t.kind} terminal holds no users`, EXIT.CONFIG);
    return t;
  });
}

/**
 * A ZK terminal by name, for restore-user and copy-templates. A terminal of another kind is named
 * as what it is, with the way that works for it: "no zk terminal of that name" sent a new-user
 * trial looking for a typo in a name that was right.
 */
export function zkTerminal(config: Config, name: string, option: string): ZkTerminalConfig {
  const t = config.terminals.find((x) => x.name === name);
  if (!t) throw new ExitError(`${option} ${name}: no terminal of that name in the config`, EXIT.CONFIG);
  if (t.kind !== 'zk') {
    const way =
      option === 'restore-user'
        ? `restore-user writes to ZK terminals only: put the person back on ${name} through the roster (their row active again, then terminals sync-users) and give back the cards terminals backups lists`
        : 'fingerprint templates are copied between ZK terminals (kind: zk) only';
    const a = /^[aeiou]/.test(t.kind) ? 'an' : 'a';
    throw new ExitError(`${option} ${name}: ${name} is ${a} ${t.kind} terminal, not a zk one; ${way}`, EXIT.CONFIG);
  }
  return t;
}

export function syncAdapterFor(
  t: TerminalConfig,
  deps: Pick<UserCommandDeps, 'config' | 'journal' | 'now' | 'clientFactory' | 'hikClientFactory' | 'logger'>,
): UserSyncAdapter {
  const clock = { now: deps.now };
  const key = configKeyIn(deps.config, t.name);
  if (t.kind === 'zk') return new ZkSyncAdapter(new ZkUserTerminal(t, deps.clientFactory, key));
  if (t.kind === 'adms') return new PushSyncAdapter(t, new PushStore(deps.journal.db, deps.journal, clock), deps.now);
  if (t.kind === 'hikvision') {
    const source = sourceDepsFor(deps.journal, deps.logger ?? silentLogger(), clock);
    return new HikSyncAdapter(t, source, key, deps.hikClientFactory);
  }
  if (t.kind === 'dahua')
    return new DahuaSyncAdapter(t, sourceDepsFor(deps.journal, deps.logger ?? silentLogger(), clock), key);
  throw new ExitError(`${t.name}: a ${t.kind} terminal holds no users`, EXIT.CONFIG);
}
