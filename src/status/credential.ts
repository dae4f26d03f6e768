import type { Config } from '../config/schema.js';
import { credentialPlace, DEFAULT_SINK_NAME, sinksOf } from '../config/sinks.js';
import { credentialWords } from '../delivery/health.js';
import type { SinkCredential } from './types.js';

/**
 * How the status names a sink's credential: in the words of its own kind, as delivery's log and
 * state already do (credentialWords). The status said "HRMS refuses the token ... put a valid
 * token in the token file" for an Odoo or Frappe sink too, which has no token file (a trial).
 * `hrmsBlock`: the seed HRMS of the config's `hrms:` block, whose words stay as they were
 * ("HRMS", "token", hrms.tokenFile).
 */
export function sinkCredential(
  sink: { name: string; kind: SinkCredential['kind'] } & CredentialFiles,
  hrmsBlock: boolean,
): SinkCredential {
  const w = credentialWords(sink.kind, credentialPlace(sink, hrmsBlock));
  const files = [sink.tokenFile, sink.apiKeyFile, sink.apiSecretFile].filter((f): f is string => !!f);
  return {
    sink: sink.name,
    kind: sink.kind,
    who: w.who,
    what: w.what,
    place: w.place!,
    hrmsBlock,
    ...(files.length > 0 ? { files } : {}),
  };
}

/** The secret files a sink's config may name (paths only: a file's contents are never read here). */
interface CredentialFiles {
  tokenFile?: string | undefined;
  apiKeyFile?: string | undefined;
  apiSecretFile?: string | undefined;
}

/** The default sink's (the first of the config); undefined without any sink. */
export function defaultCredential(config: Config): SinkCredential | undefined {
  const first = sinksOf(config)[0];
  return first && sinkCredential(first, first.name === DEFAULT_SINK_NAME && !!config.hrms);
}
