/**
 * The first words of the Odoo sink's own refusals of a punch whose code names no employee, or
 * several. Nothing of that person is in Odoo to pair with, so these refusals hold none of the
 * person's later punches (journal/held-behind-refused.ts): all of them are refused alike and go
 * `dead` alike, where a held chain would take a full dead cycle per punch for a person who is
 * never in Odoo (a contractor enrolled on the terminals only). A later punch of the code takes
 * them along instead, ahead of it (withRefusalsAhead): once the employee is added, they go in first.
 */
export const NO_EMPLOYEE = 'no employee in Odoo has';
export const EMPLOYEES_HAVE = 'employees in Odoo have';

/** The same as SQL LIKE patterns on a refused punch's message. */
export const REFUSALS_THAT_HOLD_NOTHING: readonly string[] = [`${NO_EMPLOYEE} %`, `% ${EMPLOYEES_HAVE} %`];
