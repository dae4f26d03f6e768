import { tryJson } from './body.js';
import type { Reply } from './reply.js';
import { failure } from './reply.js';
import type { HrmsFaults, HrmsSim } from './types.js';

/** What the admin API can reach: the simulator without its lifecycle. */
export type AdminTarget = Omit<HrmsSim, 'url' | 'port' | 'stop'>;

const ok = (body: unknown): Reply => ({ httpStatus: 200, body });

/**
 * The /__sim/ admin API for tests that run the simulator (or the daemon) as a child process.
 * It needs no token: the simulator is a test tool bound to loopback by default.
 */
export function handleAdmin(method: string, route: string, body: Buffer, sim: AdminTarget): Reply {
  const json = () => tryJson(body.toString('utf8') || '{}');
  const key = `${method} ${route}`;
  switch (key) {
    case 'GET received':
      return ok(sim.received());
    case 'GET attendance':
      return ok(sim.attendance());
    case 'GET employees':
      return ok(sim.employees());
    case 'GET requests':
      return ok({ requests: sim.requests() });
    case 'GET faults':
      return ok(sim.faults());
    case 'POST faults': {
      const f = json();
      if (f === null || typeof f !== 'object' || Array.isArray(f))
        return failure(400, 'faults: body must be a JSON object');
      try {
        sim.setFaults(f as Partial<HrmsFaults>);
      } catch (e) {
        return failure(400, e instanceof Error ? e.message : String(e));
      }
      return ok(sim.faults());
    }
    case 'POST tokens': {
      const t = json() as { token?: unknown; expiresAt?: unknown } | undefined;
      if (!t || typeof t.token !== 'string' || t.token === '')
        return failure(400, 'tokens: body must be {"token": "...", "expiresAt"?: epoch ms}');
      if (t.expiresAt !== undefined && typeof t.expiresAt !== 'number')
        return failure(400, 'tokens: expiresAt must be epoch ms');
      sim.addToken(t.token, t.expiresAt);
      return ok({ status: true });
    }
    case 'POST employees': {
      const r = sim.upsertEmployee(json() as Record<string, unknown>);
      return { httpStatus: r.status ? 200 : 400, body: r };
    }
    case 'POST reset':
      sim.reset();
      return ok({ status: true });
    default:
      return failure(404, `unknown simulator admin request: ${method} /__sim/${route}`);
  }
}
