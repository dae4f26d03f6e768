/**
 * `punchgate demo --hrms frappe|odoo` and `--terminals`: the demo, as a child process of the
 * built CLI, writes a real config (the sink of that kind, its secrets in 0600 files) and its
 * daemon delivers the punches of every simulated terminal, the BioTime server's and the Dahua
 * terminal's among them, to that simulator: counted by asking the simulator itself while the
 * demo runs (Frappe's admin API, Odoo's JSON-2 API with the demo's key), then in the demo's
 * summary after Ctrl-C. With the seed HRMS and only the BioTime and Dahua kinds, the journal
 * (`punchgate punches`) holds their punches.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { demoConfigOnFreePorts } from './demo-config.js';
import { withoutBoxStalls } from './fault-lines.js';

/** The demo's codes start with the digit of their terminal: zk 1, push 2, Security PUSH 3, BioTime 4, Dahua 5. */
const TERMINAL_DIGITS = ['1', '2', '3', '4', '5'];

function startDemo(config: string, args: string[]) {
  const child = spawn(
    process.execPath,
    ['dist/punchgate.js', 'demo', '--demo-config', config, '--punch-every', '1', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const io = { out: '' };
  child.stdout.on('data', (d: Buffer) => (io.out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (io.out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, io, exited };
}

interface RunDoc {
  hrms?: unknown;
  sinks?: Array<{ kind: string; baseUrl: string; apiKeyFile?: string; apiSecretFile?: string; database?: string }>;
  terminals: Array<{ name: string; kind: string; passwordFile?: string }>;
}

describe('punchgate demo --hrms', () => {
  const tmp = tempDir('punchgate-demo-hrms-');
  afterAll(() => tmp.cleanup());

  /** Codes the simulator holds, asked of it over HTTP as any client would. */
  const askSim: Record<'frappe' | 'odoo', (run: RunDoc) => Promise<string[]>> = {
    frappe: async (run) => {
      const base = run.sinks![0]!.baseUrl;
      const employees = (await (await fetch(`${base}/__sim/employees`)).json()) as Array<{
        name: string;
        fields: Record<string, string>;
      }>;
      const code = new Map(employees.map((e) => [e.name, e.fields.attendance_device_id]));
      const checkins = (await (await fetch(`${base}/__sim/checkins`)).json()) as Array<{ employee: string }>;
      return checkins.map((c) => code.get(c.employee) ?? '?');
    },
    odoo: async (run) => {
      const sink = run.sinks![0]!;
      const key = readFileSync(sink.apiKeyFile!, 'utf8').trim();
      const call = async (model: string, fields: string[]) => {
        const res = await fetch(`${sink.baseUrl}/json/2/${model}/search_read`, {
          method: 'POST',
          headers: {
            authorization: `bearer ${key}`,
            'x-odoo-database': sink.database!,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ domain: [], fields }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as Array<Record<string, unknown>>;
      };
      const code = new Map((await call('hr.employee', ['id', 'barcode'])).map((e) => [e.id, String(e.barcode)]));
      const attendances = await call('hr.attendance', ['employee_id', 'check_in', 'check_out']);
      return attendances.flatMap((a) => {
        const c = code.get((a.employee_id as [number, string])[0]) ?? '?';
        return a.check_out === false ? [c] : [c, c];
      });
    },
  };

  for (const [hrms, label] of [
    ['frappe', 'the Frappe HR simulator \\(Employee Checkins\\)'],
    ['odoo', 'the Odoo simulator \\(hr.attendance\\)'],
  ] as const) {
    it(`--hrms ${hrms}: a real config with the key in files; every terminal's punches, BioTime's and Dahua's too, reach the ${hrms} simulator`, async () => {
      const dir = tempDir(`punchgate-demo-${hrms}-`);
      try {
        const { config } = await demoConfigOnFreePorts(dir.path);
        const demo = startDemo(config, ['--hrms', hrms]);
        let run: RunDoc | undefined;
        try {
          await waitFor(
            () => /status page: http/.test(demo.io.out),
            30_000,
            `the demo started (output so far:\n${demo.io.out.slice(-2000)})`,
          );
          // The config the daemon runs, written as an admin writes one: the sink, secrets in files.
          const runPath = /the daemon runs (\S+demo-run\.yaml)/.exec(demo.io.out)?.[1];
          expect(runPath, demo.io.out.slice(-2000)).toBe(dir.path('demo-run.yaml'));
          run = parse(readFileSync(runPath!, 'utf8')) as RunDoc;
          expect(run.hrms).toBeUndefined();
          expect(run.sinks).toHaveLength(1);
          expect(run.sinks![0]!.kind).toBe(hrms);
          const files = [
            run.sinks![0]!.apiKeyFile!,
            ...(hrms === 'frappe' ? [run.sinks![0]!.apiSecretFile!] : []),
            ...run.terminals.flatMap((t) => (t.passwordFile ? [t.passwordFile] : [])),
          ];
          expect(files).toHaveLength(hrms === 'frappe' ? 4 : 3);
          for (const f of files) expect(statSync(f).mode & 0o777).toBe(0o600);
          expect(demo.io.out).toMatch(
            new RegExp(`punches go to ${label} on http://127\\.0\\.0\\.1:\\d+ \\(sink "${hrms}", kind ${hrms}\\)`),
          );
          // Counted at the simulator, as it answers any client: a punch of each terminal's users.
          let codes: string[] = [];
          await waitFor(
            async () => {
              codes = await askSim[hrms](run!);
              return TERMINAL_DIGITS.every((d) => codes.some((c) => c.startsWith(d)));
            },
            40_000,
            `punches of all five terminals at the ${hrms} simulator (so far ${codes.join(',')}; output:\n${demo.io.out.slice(-2000)})`,
          );
          // The secrets never show in what the demo prints.
          for (const f of files) expect(demo.io.out).not.toContain(readFileSync(f, 'utf8').trim());
        } finally {
          demo.child.kill('SIGINT');
        }
        expect(await demo.exited).toBe(0);
        const summary = new RegExp(
          `${label} received (\\d+) punches \\(gate-1 (\\d+), lobby (\\d+), door (\\d+), office (\\d+), side-door (\\d+)\\)`,
        ).exec(demo.io.out);
        expect(summary, demo.io.out.slice(-2000)).not.toBeNull();
        expect(
          summary!
            .slice(2)
            .map(Number)
            .every((n) => n >= 1),
        ).toBe(true);
        expect(withoutBoxStalls(demo.io.out)).not.toMatch(/ECONNREFUSED|\bERROR\b|\bWARN\b/);
      } finally {
        dir.cleanup();
      }
    }, 90_000);
  }

  it('--terminals biotime,dahua: only those two are simulated and run; the journal holds punches of both', async () => {
    const { config } = await demoConfigOnFreePorts(tmp.path);
    const demo = startDemo(config, ['--terminals', 'biotime,dahua']);
    try {
      await waitFor(
        () =>
          /terminal office: \d+ new punch/.test(demo.io.out) &&
          /terminal side-door: \d+ new punch/.test(demo.io.out) &&
          /delivered \d+ punch(es)? to the HRMS|sent \d+ punch(es)? to the HRMS: [1-9]\d* delivered/.test(demo.io.out),
        40_000,
        `BioTime and Dahua punches journalled (output so far:\n${demo.io.out.slice(-2000)})`,
      );
    } finally {
      demo.child.kill('SIGINT');
    }
    expect(await demo.exited).toBe(0);
    const run = parse(readFileSync(tmp.path('demo-run.yaml'), 'utf8')) as RunDoc;
    expect(run.terminals.map((t) => t.kind)).toEqual(['biotime', 'dahua']);
    expect(demo.io.out).not.toMatch(/ZK terminal simulator|push terminal simulator/);
    // The journal, read by the CLI as an admin would: punches of both terminals, with the demo's codes.
    const punches = (terminal: string) =>
      execFileSync(
        process.execPath,
        ['dist/punchgate.js', 'punches', '--config', tmp.path('demo-run.yaml'), '--terminal', terminal, '--json'],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const office = punches('office');
    const side = punches('side-door');
    expect(office.length).toBeGreaterThanOrEqual(1);
    expect(side.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(office)).toMatch(/"400[123]"/);
    expect(JSON.stringify(side)).toMatch(/"500[123]"/);
    expect(
      /the HRMS simulator received \d+ punches \(office (\d+), side-door (\d+)\)/.exec(demo.io.out),
    ).not.toBeNull();
  }, 60_000);

  it('a second demo in the same folder, with another HRMS, starts on a fresh journal: no warning about the last run', async () => {
    // The folder of the test above: its journal remembers the BioTime table read up to some id,
    // the Dahua log's record numbers and the seed HRMS as the first sink.
    expect(existsSync(tmp.path('journal.db'))).toBe(true);
    const demo = startDemo(tmp.path('demo.yaml'), ['--terminals', 'biotime,dahua', '--hrms', 'frappe']);
    try {
      await waitFor(
        () =>
          /terminal office: \d+ new punch/.test(demo.io.out) &&
          /terminal side-door: \d+ new punch/.test(demo.io.out) &&
          /delivered \d+ punch(es)? to the HRMS|sent \d+ punch(es)? to the HRMS: [1-9]\d* delivered/.test(demo.io.out),
        40_000,
        `BioTime and Dahua punches delivered (output so far:\n${demo.io.out.slice(-2000)})`,
      );
    } finally {
      demo.child.kill('SIGINT');
    }
    expect(await demo.exited).toBe(0);
    expect(demo.io.out).toContain(`a fresh journal: the last demo's ${tmp.path('journal.db')} was removed`);
    expect(withoutBoxStalls(demo.io.out)).not.toMatch(/\bERROR\b|\bWARN\b/);
  }, 60_000);

  it('refuses an HRMS or a terminal kind it does not know, naming the ones there are', () => {
    for (const args of [
      ['--hrms', 'sap'],
      ['--terminals', 'zk,suprema'],
    ]) {
      let code = 0;
      let err = '';
      try {
        execFileSync(process.execPath, ['dist/punchgate.js', 'demo', ...args], { encoding: 'utf8', stdio: 'pipe' });
      } catch (e) {
        code = (e as { status: number }).status;
        err = String((e as { stderr: string }).stderr);
      }
      expect(code).toBe(78);
      expect(err).toMatch(args[0] === '--hrms' ? /seed, frappe, odoo/ : /zk, adms, biotime, dahua/);
    }
  });
});
