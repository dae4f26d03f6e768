import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { HrmsUsers } from '../../src/hrms/users.js';
import { startHrmsSim, type HrmsSim, type HrmsSimOptions } from '../../src/sim/hrms/index.js';
import { Secrets } from '../../src/util/secrets.js';
import type { EmployeeDeps } from '../../src/employees/commands.js';

export const TOKEN = 'test-token-5f1c9a';
export const SERVICE_WORD = 'hrms';

/** Text written to a fake stdout/stderr. */
export class Sink {
  text = '';
  isTTY = false;
  columns = 100;
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

export interface Rig {
  sim: HrmsSim;
  client: HrmsUsers;
  secrets: Secrets;
  out: Sink;
  err: Sink;
  deps: EmployeeDeps;
  close(): Promise<void>;
}

/** The simulator on 127.0.0.1:0 and a client for it with a token given directly (no file). */
export async function startRig(
  simOpts: HrmsSimOptions = {},
  token = TOKEN,
  fetchMethod: 'GET' | 'POST' = 'GET',
): Promise<Rig> {
  const sim = await startHrmsSim({ tokens: [TOKEN], serviceWord: SERVICE_WORD, ...simOpts });
  const secrets = new Secrets();
  secrets.add(token);
  const client = new HrmsUsers({
    hrms: {
      baseUrl: sim.url,
      userPath: `/api.php/system/${SERVICE_WORD}/updateUser`,
      employeeFetch: {
        path: `/api.php/system/${SERVICE_WORD}/fetchEmployees`,
        method: fetchMethod,
        params: { status: 'status', department: 'department', designation: 'designation' },
      },
      timeoutMs: 5000,
      connectTimeoutMs: 2000,
    },
    token: { get: () => token },
    secrets,
  });
  const out = new Sink();
  const err = new Sink();
  return {
    sim,
    client,
    secrets,
    out,
    err,
    deps: { client, out, err, identifyBy: 'username', required: ['username'] },
    async close() {
      await client.close();
      await sim.stop();
    },
  };
}

/** A minimal punchgate config for the CLI, pointing at the simulator. */
export function writeConfig(
  path: string,
  opts: { baseUrl: string; tokenFile: string; dir: string; employees?: Record<string, unknown> },
): void {
  writeFileSync(
    path,
    stringify({
      site: 'test-site',
      journal: { path: `${opts.dir}/journal.db` },
      hrms: { baseUrl: opts.baseUrl, tokenFile: opts.tokenFile, serviceWord: SERVICE_WORD, timeoutMs: 5000 },
      employees: opts.employees ?? {},
    }),
  );
}

/** Posts punches to the simulator's attendance interface as the delivery side would. */
export async function pushPunches(
  sim: HrmsSim,
  punches: Array<{ biometriccode: string; logDate: string }>,
): Promise<Array<{ status: boolean; message: string }>> {
  const form = new FormData();
  form.set('punches_data', JSON.stringify(punches));
  const res = await fetch(`${sim.url}/api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}` },
    body: form,
  });
  const body = (await res.json()) as {
    Payload?: Array<{ status: boolean; message: string }>;
    payload?: Array<{ status: boolean; message: string }>;
  };
  return body.Payload ?? body.payload ?? [];
}
