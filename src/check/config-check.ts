import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config/load.js';
import { checkTerminalConfig } from '../sources/build.js';
import type { Config } from '../config/schema.js';
import { fail, pass, errorText, type CheckResult } from './types.js';

/** Loads and validates the config; on failure every problem is one `path: message` line. */
export function checkConfig(file: string): { result: CheckResult; config?: Config } {
  const shown = resolve(file);
  try {
    const config = loadConfig(file, checkTerminalConfig);
    const enabled = config.terminals.filter((t) => t.enabled).length;
    const disabled = config.terminals.length - enabled;
    const terminals = `${enabled} terminal${enabled === 1 ? '' : 's'} enabled${disabled ? `, ${disabled} disabled` : ''}`;
    return { result: pass('config', `${shown}: site ${config.site}, ${terminals}`), config };
  } catch (e) {
    if (e instanceof ConfigError) {
      const n = e.problems.length;
      return {
        result: {
          ...fail(
            'config',
            `${shown} cannot be used (${n} problem${n === 1 ? '' : 's'})`,
            e.problems.some((p) => p.includes(': cannot read the config file ('))
              ? `do what the line below says, then run punchgate check again`
              : `correct the line${n === 1 ? '' : 's'} below in ${shown}, then run punchgate check again`,
          ),
          problems: e.problems,
        },
      };
    }
    return { result: fail('config', `${shown}: ${errorText(e)}`, `correct ${shown}, then run punchgate check again`) };
  }
}
