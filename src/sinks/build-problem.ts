import type { SinkConfig } from '../config/sinks.js';
import { SettingFileError } from '../hrms/setting-file.js';
import { messageOf } from '../util/errors.js';
import { SinkKindUnavailableError } from './build.js';

/** Why a sink's sender could not be built, and what to do, in the words of its own config keys. */
export interface BuildProblem {
  /** "hrms.caFile: /etc/punchgate/ca.pem does not exist". */
  problem: string;
  /** "put the CA certificate there or remove caFile". */
  fix: string;
}

/**
 * Where a sink's keys are in the config: `hrms` for the `hrms:` block, else `sinks[NAME]`. A
 * problem names the key as the admin wrote it, so that the fix is about the file that failed.
 */
export function sinkKeyPrefix(sink: Pick<SinkConfig, 'name'>, fromHrmsBlock: boolean): string {
  return fromHrmsBlock ? 'hrms' : `sinks[${sink.name}]`;
}

/**
 * The words for an error thrown while building a sink's sender (sinks/build.ts): one place for
 * `punchgate run`'s status (a sink that cannot start) and `punchgate check`, so both name the key
 * that failed (a missing caFile is not a proxy problem) and give the same fix. Paths are said,
 * never a file's content.
 */
export function buildProblem(e: unknown, prefix: string): BuildProblem {
  if (e instanceof SettingFileError) return settingFileProblem(e, prefix);
  if (e instanceof SinkKindUnavailableError)
    return { problem: e.message, fix: 'install a punchgate that delivers to it' };
  return { problem: messageOf(e), fix: `check ${prefix} in the config` };
}

function settingFileProblem(e: SettingFileError, prefix: string): BuildProblem {
  const key = `${prefix}.${e.key}`;
  const isCa = e.key === 'caFile';
  const what = isCa ? 'the CA certificate (PEM)' : 'one line user:password';
  if (e.code === 'ENOENT')
    return {
      problem: `${key}: ${e.file} does not exist`,
      fix: `put ${what} there, or remove ${e.key}`,
    };
  if (e.code === 'EACCES' || e.code === 'EPERM')
    return {
      problem: `${key}: ${e.file} cannot be read by this user (permission denied)`,
      fix: `make ${e.file} readable by the user punchgate runs as (punchgate)`,
    };
  if (e.code === 'FORMAT')
    return {
      problem: `${key}: ${e.problem}`,
      fix: isCa
        ? `put the PEM certificate of the CA that signs the server's certificate in ${e.file} (-----BEGIN CERTIFICATE----- ...)`
        : `make the first line of ${e.file} user:password`,
    };
  return { problem: `${key}: ${e.problem}`, fix: `make ${e.file} a readable file holding ${what}, or remove ${e.key}` };
}
