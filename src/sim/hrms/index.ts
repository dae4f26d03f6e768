import { listenHttp } from '../http-server.js';
import { DEFAULT_ATTENDANCE_PATH } from '../../config/schema.js';
import type { AdminTarget } from './admin.js';
import { FaultState } from './faults.js';
import { checkMapping, DEFAULT_MANDATORY, defaultMapping, resolveMandatory } from './mapping.js';
import { createHrmsServer, type ServerState } from './server.js';
import { AttendanceStore, EmployeeStore } from './store.js';
import { TokenRegistry } from './tokens.js';
import type { HrmsSim, HrmsSimOptions } from './types.js';
import { applyUserOperation, type UsersContext } from './users.js';

export type * from './types.js';
export { defaultFaults } from './faults.js';
export { defaultMapping, DEFAULT_MANDATORY, loadMappingFile, parseMapping } from './mapping.js';
export { MSG } from './messages.js';
export { loadRosterFile, rosterFromCsv, type RosterRow } from './roster.js';

function normalizeBasePath(p: string | undefined): string {
  const t = (p ?? '').replace(/\/+$/, '');
  if (t && !t.startsWith('/')) throw new Error(`basePath must start with "/": ${t}`);
  return t;
}

/** Starts the HRMS simulator; resolves once it listens. Throws on a bad option (mapping, mandatory, faults). */
export async function startHrmsSim(opts: HrmsSimOptions = {}): Promise<HrmsSim> {
  const now = opts.now ?? Date.now;
  const mapping = opts.mapping ?? defaultMapping();
  checkMapping(mapping);
  const identifyBy = opts.identifyBy ?? 'username';
  if (!mapping[identifyBy]) throw new Error(`identifyBy: payload field ${identifyBy} is not in the field mapping`);
  const serviceWord = opts.serviceWord ?? 'hrms';
  if (!/^[A-Za-z0-9_-]+$/.test(serviceWord)) throw new Error(`serviceWord must be a single path word: ${serviceWord}`);
  const rosterMode = opts.roster ?? 'auto';

  const employees = new EmployeeStore(mapping);
  const attendance = new AttendanceStore();
  const faults = new FaultState(opts.faults ?? {});
  const tokens = new TokenRegistry(opts.tokens);
  const users: UsersContext = {
    employees,
    mapping,
    mandatory: resolveMandatory(
      opts.mandatory ?? DEFAULT_MANDATORY.filter((m) => Object.values(mapping).some((f) => f.field === m)),
      mapping,
    ),
    identifyBy,
  };

  const upsertEmployee = (body: Record<string, unknown>) =>
    applyUserOperation(body, users).body as { status: boolean; message: string; data?: Record<string, unknown> };
  const seedEmployees = () => {
    (opts.employees ?? []).forEach((e, i) => {
      const r = upsertEmployee(e);
      if (r.status) return;
      if (opts.onInvalidEmployee) opts.onInvalidEmployee(i, r.message);
      else throw new Error(`employees[${i}]: ${r.message}`);
    });
  };
  seedEmployees();

  const admin: AdminTarget = {
    received: () => attendance.received(),
    attendance: () => attendance.attendance(),
    requests: () => attendance.requestCount,
    faults: () => faults.get(),
    setFaults: (f) => faults.set(f),
    addToken: (t, expiresAt) => tokens.add(t, expiresAt),
    employees: () => employees.all().map((r) => employees.snapshot(r)),
    upsertEmployee,
    reset: () => {
      attendance.clear();
      faults.reset();
      employees.clear();
      seedEmployees();
    },
  };

  const state: ServerState = {
    basePath: normalizeBasePath(opts.basePath),
    attendancePath: opts.attendancePath ?? DEFAULT_ATTENDANCE_PATH,
    userPath: `/api.php/system/${serviceWord}/updateUser`,
    fetchPath: `/api.php/system/${serviceWord}/fetchEmployees`,
    authHttpStatus: opts.authHttpStatus ?? 401,
    maxBodyBytes: opts.maxBodyBytes ?? 10 * 1024 * 1024,
    tokens,
    faults,
    attendance,
    attendanceCtx: {
      store: attendance,
      employees,
      rosterActive: () => rosterMode === 'employees' || (rosterMode === 'auto' && employees.size > 0),
      now,
      keyStyle: opts.keyStyle ?? 'capital',
      dedupBy: opts.dedupBy ?? 'code-time',
    },
    users,
    admin,
    now,
    log: opts.log ?? (() => {}),
  };

  const server = createHrmsServer(state);
  const { port, urlHost, stop } = await listenHttp(server, opts.host ?? '127.0.0.1', opts.port ?? 0);
  return { url: `http://${urlHost}:${port}${state.basePath}`, port, ...admin, stop };
}
