import { tryJson } from '../hrms/body.js';
import type { FrappeReply } from './messages.js';
import type { FrappeSimAdmin } from './types.js';

const ok = (body: unknown): FrappeReply => ({ httpStatus: 200, body, summary: '200 admin' });
const bad = (message: string): FrappeReply => ({
  httpStatus: 400,
  body: { error: message },
  summary: `400 ${message}`,
});

/**
 * The /__sim/ admin API (no key: a test tool on loopback): GET checkins, employees, shift-types,
 * stats, faults; POST faults, employees, shift-types, reset.
 */
export function handleFrappeAdmin(method: string, route: string, body: Buffer, sim: FrappeSimAdmin): FrappeReply {
  const json = () => tryJson(body.toString('utf8') || '{}');
  const obj = () => {
    const v = json();
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  };
  try {
    switch (`${method} ${route}`) {
      case 'GET checkins':
        return ok(sim.checkins());
      case 'GET employees':
        return ok(sim.employees());
      case 'GET shift-types':
        return ok(sim.shiftTypes());
      case 'GET stats':
        return ok(sim.stats());
      case 'GET faults':
        return ok(sim.faults());
      case 'POST faults': {
        const f = obj();
        if (!f) return bad('faults: body must be a JSON object');
        sim.setFaults(f);
        return ok(sim.faults());
      }
      case 'POST employees': {
        const e = obj();
        if (!e) return bad('employees: body must be a JSON object');
        return ok(sim.addEmployee(e));
      }
      case 'POST shift-types': {
        const s = obj();
        if (!s || typeof s.name !== 'string') return bad('shift-types: body must be {"name": "...", ...}');
        return ok(sim.addShiftType(s as { name: string }));
      }
      case 'POST reset':
        sim.reset();
        return ok({ reset: true });
      default:
        return {
          httpStatus: 404,
          body: { error: `unknown admin request ${method} /__sim/${route}` },
          summary: '404 admin',
        };
    }
  } catch (e) {
    return bad(e instanceof Error ? e.message : String(e));
  }
}
