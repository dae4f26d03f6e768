import type { BiotimeTerminalConfig } from '../config/terminals.js';
import {
  BioApiError,
  BioAuthError,
  BioConnectionError,
  BioRefusedError,
  BioSetupError,
  defaultBioClientFactory,
  readBiotimePassword,
  type BioClientFactory,
  type BioTimeClient,
} from '../sources/biotime/index.js';
import { fail, pass, warn, type CheckResult } from './types.js';
import { addressShown } from '../config/web-address.js';

export interface BioCheckDeps {
  factory?: BioClientFactory;
  env?: NodeJS.ProcessEnv;
}

/**
 * Reaches one BioTime server as a poll would, changing nothing (punchgate never writes to it):
 * the address, a token for the account (JWT, else Token), and one page of transactions, the
 * newest, which says whether the licence opens the API and whether it orders by id.
 */
export async function checkBiotimeServer(
  cfg: BiotimeTerminalConfig,
  index: number,
  deps: BioCheckDeps = {},
): Promise<CheckResult> {
  const name = `terminal ${cfg.name}`;
  const key = `terminals[${index}]`;
  let client: BioTimeClient | undefined;
  try {
    const pw = readBiotimePassword(cfg, deps.env);
    client = await (deps.factory ?? defaultBioClientFactory)(cfg, pw.password);
    const newest = await client.transactions(new URLSearchParams({ page_size: '2', ordering: '-id' }));
    const ids = newest.rows.map((r) => Number(r.id));
    const byId = ids.length < 2 || ids[0]! > ids[1]!;
    const scheme = client.scheme ?? 'JWT';
    await client.http.close();
    const facts = [
      `BioTime server ${client.http.peer} (${cfg.baseUrl.startsWith('https:') ? 'TLS' : 'plain http'})`,
      `account ${cfg.username} accepted (${scheme} token)`,
      `${newest.count ?? '?'} transactions${ids[0] ? `, newest id ${ids[0]}` : ''}`,
      byId ? 'read by id' : 'read by time window (this version does not order by id)',
      ...(cfg.terminals ? [`only terminals ${cfg.terminals.join(', ')}`] : []),
      ...(cfg.areas ? [`only areas ${cfg.areas.join(', ')}`] : []),
    ].join(', ');
    return pass(name, facts);
  } catch (e) {
    client?.http.destroy();
    if (e instanceof BioSetupError)
      return fail(name, e.message, `set ${key}.passwordFile to a readable file holding the account's password`);
    if (e instanceof BioAuthError)
      return fail(
        name,
        `${e.message}`,
        `put the account's current password in ${key}.passwordFile${cfg.passwordFile ? ` (${cfg.passwordFile})` : ''}, or correct ${key}.username`,
      );
    if (e instanceof BioRefusedError)
      return fail(
        name,
        `${e.message}: the server's licence does not include the API, or the account may not use it`,
        "have the server's licence extended to the API (ZKTeco or your reseller), or give the account API access in BioTime",
      );
    if (e instanceof BioApiError)
      return fail(
        name,
        `${e.message}`,
        `check ${key}.baseUrl (${addressShown(cfg.baseUrl)}) names the BioTime server's web address and port`,
      );
    if (e instanceof BioConnectionError)
      return fail(
        name,
        `${e.message}`,
        `check that the BioTime server is up and ${key}.baseUrl (${addressShown(cfg.baseUrl)}); the box must reach it`,
      );
    return warn(name, `${e instanceof Error ? e.message : String(e)}`, 'run punchgate check again');
  }
}
