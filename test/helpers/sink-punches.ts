import { runPunchgate } from './cli.js';

/** One line of `punchgate punches --sink NAME --json`: a punch as that sink has it. */
export interface SinkRow {
  biometricCode: string;
  logTime: string;
  state: string;
  attempts: number;
  lastMessage?: string | null;
}

/**
 * `punchgate punches --sink NAME --json --limit N` on a config: the sink's state of each punch
 * (asynchronous: the simulators in the test's own process must keep answering). A run that fails
 * throws with its stderr, rather than passing for a sink with no punches.
 */
export async function sinkPunches(configPath: string, sink: string, limit = 1000): Promise<SinkRow[]> {
  const r = await runPunchgate(['--config', configPath, 'punches', '--sink', sink, '--json', '--limit', String(limit)]);
  if (r.status !== 0) throw new Error(`punches --sink ${sink}: ${r.status} ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SinkRow);
}
