import { Agent, FormData, request } from 'undici';

/**
 * An explicit dispatcher: on Node 24 the global one is Node's own bundled undici, which does
 * not understand this undici's FormData and never sends the body.
 */
const dispatcher = new Agent();
import { afterEach } from 'vitest';
import { startHrmsSim, type HrmsSim, type HrmsSimOptions } from '../../src/sim/hrms/index.js';

export const ATT_PATH = '/api.php/hrm/syncattendanceshiftwise/fetchBulkAttendanceFromAttendanceServer';
export const USER_PATH = '/api.php/system/hrms/updateUser';
export const FETCH_PATH = '/api.php/system/hrms/fetchEmployees';
export const TOKEN = 'sim-test-token-123';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

async function answer(res: Awaited<ReturnType<typeof request>>): Promise<Answer> {
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** Pushes punches as the seed says: multipart form field punches_data holding a JSON array. */
export async function pushPunches(
  sim: HrmsSim,
  punches: unknown,
  token: string | null = TOKEN,
  path = ATT_PATH,
): Promise<Answer> {
  const form = new FormData();
  form.append('punches_data', typeof punches === 'string' ? punches : JSON.stringify(punches));
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return answer(await request(`${sim.url}${path}`, { method: 'POST', body: form, headers, dispatcher }));
}

export async function postJson(
  sim: HrmsSim,
  path: string,
  body: unknown,
  token: string | null = TOKEN,
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return answer(
    await request(`${sim.url}${path}`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers,
      dispatcher,
    }),
  );
}

export async function get(sim: HrmsSim, pathAndQuery: string, token: string | null = TOKEN): Promise<Answer> {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  return answer(await request(`${sim.url}${pathAndQuery}`, { method: 'GET', headers, dispatcher }));
}

export const user = (sim: HrmsSim, body: unknown, token: string | null = TOKEN) =>
  postJson(sim, USER_PATH, body, token);

export const alice = {
  username: 'alice',
  name: 'Alice Example',
  email: 'alice@example.com',
  gender: 'Female',
  dob: '1990-04-01',
  Role: 'Engineer',
  zone: null,
  block: 0,
  biometriccode: '101',
  department: 'R&D',
};

export const bob = {
  username: 'bob',
  name: 'Bob Example',
  email: 'bob@example.com',
  Role: 'Operator',
  block: 0,
  biometriccode: '102',
  department: 'Plant',
};

/**
 * A `start(opts)` that starts the simulator (accepting TOKEN unless `tokens` says otherwise)
 * and stops it after each test.
 */
export function useHrmsSim(): (opts?: HrmsSimOptions) => Promise<HrmsSim> {
  let sim: HrmsSim | undefined;
  afterEach(async () => {
    await sim?.stop();
    sim = undefined;
  });
  return async (opts = {}) => {
    sim = await startHrmsSim({ tokens: [TOKEN], ...opts });
    return sim;
  };
}
