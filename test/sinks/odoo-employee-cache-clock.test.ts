import { describe, expect, it } from 'vitest';
import type { OdooApi } from '../../src/sinks/odoo/api.js';
import { EmployeeDirectory } from '../../src/sinks/odoo/employees.js';
import { fakeClock } from '../helpers/tmp.js';

/**
 * The Odoo sink keeps a found employee for employeeCacheSeconds: a duration, measured on the
 * monotonic clock. On the wall clock, a step back of the box clock kept an employee moved or
 * archived in Odoo for the length of the step (an hour, a day), and punches went to the old record.
 */
describe("the Odoo sink's employee cache, when the box clock steps", () => {
  it('keeps an employee for employeeCacheSeconds of time passed, whichever way the wall clock stepped', async () => {
    const clock = fakeClock();
    let calls = 0;
    const api = {
      call: async () => {
        calls++;
        return [{ id: calls, name: `record ${calls}`, barcode: '100' }];
      },
    } as unknown as OdooApi;
    const ctx = { key: 'k', scrub: (s: string) => s };
    const directory = new EmployeeDirectory('barcode', 300, clock);
    expect((await directory.resolve(['100'], api, ctx)).get('100')).toMatchObject({ id: 1 });
    clock.advance(60_000);
    expect((await directory.resolve(['100'], api, ctx)).get('100')).toMatchObject({ id: 1 });
    expect(calls).toBe(1);
    // Past the 5 min, with the box clock stepped back an hour meanwhile: asked again.
    clock.advance(241_000);
    clock.step(-3_600_000);
    expect((await directory.resolve(['100'], api, ctx)).get('100')).toMatchObject({ id: 2 });
    // A step forward of a day does not drop it early.
    clock.step(86_400_000);
    expect((await directory.resolve(['100'], api, ctx)).get('100')).toMatchObject({ id: 2 });
    expect(calls).toBe(2);
  });
});
