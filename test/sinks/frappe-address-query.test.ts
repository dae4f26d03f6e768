import { describe, expect, it } from 'vitest';
import { checkinUrl, shiftTypeUrl } from '../../src/sinks/frappe/options.js';

/**
 * A Frappe site address with a query (a proxy's key, say): the API path was appended after it, so
 * every call went to `/` with the path inside the query. The path goes before the query, as for
 * the seed HRMS and Odoo (hrmsUrl).
 */
describe('a Frappe address with a query', () => {
  it('puts the API path before the query', () => {
    expect(checkinUrl({ baseUrl: 'https://erp.example.com/?k=1', method: 'hrms' })).toBe(
      'https://erp.example.com/api/method/hrms.hr.doctype.employee_checkin.employee_checkin.add_log_based_on_employee_field?k=1',
    );
    expect(shiftTypeUrl('https://erp.example.com?k=1', 'Day')).toBe(
      'https://erp.example.com/api/resource/Shift%20Type/Day?k=1',
    );
  });
});
