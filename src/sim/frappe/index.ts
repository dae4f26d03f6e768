import { listenHttp } from '../http-server.js';
import { handleFrappeAdmin } from './admin.js';
import { FrappeFaultState } from './faults.js';
import { createFrappeServer, type FrappeServerState } from './server.js';
import { FrappeStore } from './store.js';
import type { FrappeSim, FrappeSimAdmin, FrappeSimOptions } from './types.js';

export type * from './types.js';
export { defaultFrappeFaults, type FrappeFaults } from './faults.js';
export { MSG as FRAPPE_MSG, FRAPPE_VERSIONS, type FrappeLanguage, type FrappeVersion } from './messages.js';
export { ALTERNATING, STRICT_LOG_TYPE, type SimCheckin, type SimEmployee, type SimShiftType } from './store.js';
export type { ApiKeyPair } from './server.js';

/**
 * Starts a Frappe HR / ERPNext simulator (Employees, Employee Checkins, Shift Types, API key
 * auth, Frappe's answers); resolves once it listens.
 */
export async function startFrappeSim(opts: FrappeSimOptions): Promise<FrappeSim> {
  if (opts.keys.length === 0) throw new Error('keys: at least one API key pair');
  const store = new FrappeStore();
  const faults = new FrappeFaultState(opts.faults ?? {});
  const stats = { requests: 0, checkinCalls: 0, inFlight: 0, maxInFlight: 0 };
  const seed = () => {
    for (const s of opts.shiftTypes ?? []) store.addShiftType(s);
    for (const e of opts.employees ?? []) store.addEmployee(e);
  };
  seed();

  const admin: FrappeSimAdmin = {
    checkins: () => store.checkins.map((c) => ({ ...c })),
    employees: () => [...store.employees.values()].map((e) => ({ ...e, fields: { ...e.fields } })),
    shiftTypes: () => [...store.shiftTypes.values()].map((s) => ({ ...s })),
    stats: () => ({ ...stats }),
    faults: () => faults.get(),
    setFaults: (f) => faults.set(f),
    addEmployee: (e) => store.addEmployee(e),
    addShiftType: (s) => store.addShiftType(s),
    reset: () => {
      store.clear();
      faults.reset();
      Object.assign(stats, { requests: 0, checkinCalls: 0, maxInFlight: stats.inFlight });
      seed();
    },
  };
  const state: FrappeServerState = {
    apps: opts.apps ?? ['hrms', 'erpnext'],
    version: opts.version ?? 15,
    language: opts.language ?? 'en',
    keys: opts.keys,
    store,
    faults,
    stats,
    admin: (method, route, body) => handleFrappeAdmin(method, route, body, admin),
    now: opts.now ?? Date.now,
    log: opts.log ?? (() => {}),
  };
  const server = createFrappeServer(state);
  const { port, urlHost, stop } = await listenHttp(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return { url: `http://${urlHost}:${port}`, port, ...admin, stop };
}
