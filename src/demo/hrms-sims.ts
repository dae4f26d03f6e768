import { startFrappeSim } from '../sim/frappe/index.js';
import { startHrmsSim } from '../sim/hrms/index.js';
import { startOdooSim } from '../sim/odoo/index.js';
import { DEMO_ODOO_DATABASE, type DemoHrms, type DemoSecrets } from './run-config.js';

/** The simulated HRMS of the demo, whichever kind: where it listens and the codes of the punches it holds. */
export interface DemoHrmsSim {
  /** `the Frappe HR simulator (Employee Checkin)`: what the summary calls it. */
  label: string;
  url: string;
  /** The terminal code of every punch it received (an Odoo attendance counts its check-in and its check-out). */
  receivedCodes(): string[];
  stop(): Promise<void>;
}

/**
 * Starts the demo's HRMS simulator of the chosen kind on the address of the demo config, with
 * an employee for each code the demo's terminals punch (Frappe and Odoo match punches to
 * employees by that code; the seed contract takes any code).
 */
export async function startDemoHrms(o: {
  hrms: DemoHrms;
  baseUrl: string;
  secrets: DemoSecrets;
  codes: readonly string[];
  log: (line: string) => void;
}): Promise<DemoHrmsSim> {
  const host = '127.0.0.1';
  const port = Number(new URL(o.baseUrl).port);
  if (o.hrms === 'frappe') {
    const sim = await startFrappeSim({
      host,
      port,
      keys: [o.secrets.frappe!],
      employees: o.codes.map((code) => ({ employee_name: `Demo ${code}`, fields: { attendance_device_id: code } })),
      log: o.log,
    });
    const codeOf = new Map(sim.employees().map((e) => [e.name, e.fields.attendance_device_id ?? '']));
    return {
      label: 'the Frappe HR simulator (Employee Checkins)',
      url: sim.url,
      receivedCodes: () => sim.checkins().map((c) => codeOf.get(c.employee) ?? ''),
      stop: sim.stop,
    };
  }
  if (o.hrms === 'odoo') {
    const sim = await startOdooSim({
      host,
      port,
      database: DEMO_ODOO_DATABASE,
      apiKeys: [o.secrets.odoo!],
      employees: o.codes.map((code) => ({ name: `Demo ${code}`, barcode: code })),
      log: o.log,
    });
    const codeOf = new Map(sim.store.employees.map((e) => [e.id, String(e.barcode)]));
    return {
      label: 'the Odoo simulator (hr.attendance)',
      url: sim.url,
      receivedCodes: () =>
        sim.store.attendances.flatMap((a) => {
          const code = codeOf.get(a.employee_id) ?? '';
          return a.check_out === false ? [code] : [code, code];
        }),
      stop: sim.stop,
    };
  }
  const sim = await startHrmsSim({ host, port, tokens: [o.secrets.seedToken!], log: o.log });
  return {
    label: 'the HRMS simulator',
    url: sim.url,
    receivedCodes: () => sim.attendance().map((p) => String(p.biometriccode)),
    stop: sim.stop,
  };
}
