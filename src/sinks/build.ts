import type { FrappeSinkConfig, OdooSinkConfig, SinkConfig } from '../config/sinks.js';
import { AttendanceClient } from '../hrms/attendance.js';
import { TokenSource, TokenUnavailableError } from '../hrms/token.js';
import type { Secrets } from '../util/secrets.js';
import type { TerminalConfig } from '../config/terminals.js';
import { directionResolver, resolveDirection, type DirectionOf, type DirectionRule } from '../punch/direction.js';
import { FrappeSender } from './frappe/index.js';
import { OdooSender } from './odoo/index.js';
import { SeedSinkSender } from './seed.js';
import type { SinkSender } from './types.js';

/** Where a sink's credential comes from (the shape of delivery's TokenProvider). */
export interface SinkTokens {
  get(): string;
  /** The file named in an auth-failure line. */
  file?(): string | undefined;
}

/**
 * The senders of the sink kinds built elsewhere (src/sinks/frappe, src/sinks/odoo): passed in,
 * so that this factory does not depend on them being there.
 */
export interface SinkMakers {
  frappe?: (sink: FrappeSinkConfig) => SinkSender;
  odoo?: (sink: OdooSinkConfig) => SinkSender;
}

/**
 * The senders this build has beyond the seed HRMS. A kind left out here is refused at delivery
 * with SinkKindUnavailableError (its punches wait in the journal); tests pass their own makers.
 */
export const BUILT_IN_MAKERS: SinkMakers = {
  frappe: (s) => new FrappeSender(s, { name: s.name }),
  odoo: (s) => new OdooSender(s, { name: s.name }),
};

/**
 * What a sink punch carries beyond the journal's row, from the terminals' config: the terminal's
 * zone (for sinks storing UTC) and the direction its `direction` setting gives (docs/direction.md).
 * One place for the daemon's loops and `punchgate flush`.
 */
export function sinkPunchContext(
  terminals: readonly TerminalConfig[],
  /** The configured terminal an old name stands for (renamed.ts); none by default. */
  renamedTo: (terminal: string) => string | undefined = () => undefined,
  /** The zone a terminal had when it was last in the config (the journal's terminal_zones); none by default. */
  rememberedZone: (terminal: string) => string | undefined = () => undefined,
  /** The direction rule a terminal had when it was last in the config (the journal's terminal_directions); none by default. */
  rememberedDirection: (terminal: string) => DirectionRule | undefined = () => undefined,
): {
  timezoneOf: (terminal: string) => string | undefined;
  directionOf: DirectionOf;
} {
  const zones = new Map(terminals.map((t) => [t.name, t.timezone]));
  const direction = directionResolver(terminals);
  const current = (t: string) => renamedTo(t) ?? t;
  return {
    // A terminal taken out keeps the zone it had: its waiting punches are wall-clock times of it.
    timezoneOf: (t) => {
      const name = current(t);
      return zones.has(name) ? zones.get(name) : rememberedZone(t);
    },
    // ...and the direction it was set to: an exit's waiting punches stay outs (terminal-directions.ts).
    directionOf: (p) => {
      const name = current(p.terminal);
      const kept = zones.has(name) ? undefined : rememberedDirection(p.terminal);
      return kept ? resolveDirection(kept, p.punchState) : direction({ terminal: name, punchState: p.punchState });
    },
  };
}

/** A sink kind this punchgate cannot deliver to (its sender was not built in). */
export class SinkKindUnavailableError extends Error {
  constructor(sink: SinkConfig) {
    super(`sink ${sink.name}: kind ${sink.kind} is not built in this version of punchgate`);
    this.name = 'SinkKindUnavailableError';
  }
}

/** The sender of one sink, by its kind. */
export function buildSinkSender(
  sink: SinkConfig,
  deps: { authPatterns: readonly RegExp[]; env?: NodeJS.ProcessEnv; makers?: SinkMakers },
): SinkSender {
  switch (sink.kind) {
    case 'hrms': {
      const { name: _name, kind: _kind, ...hrms } = sink;
      return new SeedSinkSender(
        new AttendanceClient({ hrms, authPatterns: [...deps.authPatterns], ...(deps.env ? { env: deps.env } : {}) }),
      );
    }
    case 'frappe':
      if (!deps.makers?.frappe) throw new SinkKindUnavailableError(sink);
      return deps.makers.frappe(sink);
    case 'odoo':
      if (!deps.makers?.odoo) throw new SinkKindUnavailableError(sink);
      return deps.makers.odoo(sink);
  }
}

/**
 * A sink's credential, read from its files whenever they change (TokenSource) and added to the
 * secrets every log line, status and journal text is scrubbed of. The `hrms:` block's sink
 * (`fromHrmsBlock`) reads its token as ever: PUNCHGATE_HRMS_TOKEN, hrms.tokenFile, the systemd
 * credential. Every other sink reads only its own files: the seed kind its tokenFile, Frappe
 * `apiKey:apiSecret` from its two files, Odoo its API key.
 */
export function sinkTokens(
  sink: SinkConfig,
  secrets: Secrets,
  opts: { fromHrmsBlock?: boolean; env?: NodeJS.ProcessEnv } = {},
): SinkTokens {
  const own = (file: string | undefined) => new TokenSource({ tokenFile: file, secrets, env: {} });
  switch (sink.kind) {
    case 'hrms':
      return opts.fromHrmsBlock
        ? new TokenSource({ tokenFile: sink.tokenFile, secrets, ...(opts.env ? { env: opts.env } : {}) })
        : own(sink.tokenFile);
    case 'frappe': {
      const key = own(sink.apiKeyFile);
      const secret = own(sink.apiSecretFile);
      return {
        get: () => {
          const both = `${frappePart(key, sink.name, 'apiKeyFile')}:${frappePart(secret, sink.name, 'apiSecretFile')}`;
          secrets.add(both);
          return both;
        },
        file: () => sink.apiKeyFile,
      };
    }
    case 'odoo':
      return own(sink.apiKeyFile);
  }
}

const FRAPPE_SHAPE =
  'it holds the API key alone (apiKeyFile) or the API secret alone (apiSecretFile), one line each: not "key:secret", not "token key:secret"';

/**
 * One half of a Frappe credential, refused before it is sent when it cannot be one: Frappe's keys
 * and secrets are hex words, never with a colon or a space. An integrator copying Frappe's
 * `Authorization: token key:secret` into the key file otherwise met only "Frappe refused the API
 * key and secret" (or "a token is one word"), which does not say what to change (a new-user trial).
 * The message names the config key and never quotes the file.
 */
function frappePart(source: TokenSource, sinkName: string, key: 'apiKeyFile' | 'apiSecretFile'): string {
  const where = `sinks[${sinkName}].${key} (${source.file() ?? 'not set'})`;
  let text: string;
  try {
    text = source.get();
  } catch (e) {
    if (e instanceof TokenUnavailableError) throw new TokenUnavailableError(`${where}: ${e.message}; ${FRAPPE_SHAPE}`);
    throw e;
  }
  if (text.includes(':'))
    throw new TokenUnavailableError(
      `${where} holds a colon, as in "key:secret": ${FRAPPE_SHAPE}; put the part before the colon in apiKeyFile and the part after it in apiSecretFile`,
    );
  return text;
}
