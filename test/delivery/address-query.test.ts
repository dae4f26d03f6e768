import { afterEach, describe, expect, it } from 'vitest';
import { hrmsUrl } from '../../src/hrms/http.js';
import { expectDeliveredExactlyOnce, makePunches, startRig, type Rig } from './helpers.js';

/**
 * An HRMS address with a key in its query (`https://hr.example.com/api?access_token=...`, a form
 * the status hides as `?(not shown)`): the attendance path was appended after the query, so every
 * request asked for `/` with the path inside the query, and the HRMS answered 404 (found while
 * naming the address in the failure line). The path goes before the query.
 */
describe('an HRMS address with a query', () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('puts the API path before the query, and keeps a query of the path too', () => {
    expect(hrmsUrl('https://hr.example.com/hr?access_token=k3y', '/api.php/hrm/add')).toBe(
      'https://hr.example.com/hr/api.php/hrm/add?access_token=k3y',
    );
    expect(hrmsUrl('https://hr.example.com/?k=1#frag', 'api/list?all=1')).toBe(
      'https://hr.example.com/api/list?all=1&k=1',
    );
    expect(hrmsUrl('https://hr.example.com/hr/', '/api.php/x')).toBe('https://hr.example.com/hr/api.php/x');
  });

  it('delivers to the real simulator at such an address', async () => {
    rig = await startRig();
    const d = rig.makeDeliverer({ hrms: { ...rig.config.hrms!, baseUrl: `${rig.sim.url}?access_token=k3y` } });
    const punches = makePunches(5);
    rig.journal.ingest(punches);
    const report = await d.drain({ maxWaitMs: 60_000 });
    expect(report.stoppedBy).toBe('done');
    expectDeliveredExactlyOnce(rig, punches);
  });
});
