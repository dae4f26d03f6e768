/**
 * `sync-users --from-hrms` against an HRMS whose fetch answer is not what it seems: one page of a
 * longer list, entries that are not employees, fields of the wrong type, text that would drive the
 * admin's terminal. None of them may be taken as "these people left" (removed from the terminals),
 * nor written onto a terminal as a name. The removal limit is lifted here so that each guard is
 * seen on its own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HrmsUsers } from '../../src/hrms/users.js';
import { Secrets } from '../../src/util/secrets.js';
import { usersOf, useUserSync } from './helpers.js';

const env = useUserSync();
let server: Server | null = null;
let client: HrmsUsers | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = null;
});

/** An HRMS whose fetch always gives `body`. */
async function hrmsAnswering(body: unknown): Promise<HrmsUsers> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  client = new HrmsUsers({
    hrms: { ...env.config.hrms!, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    token: { get: () => 't0k3n' },
    secrets: new Secrets(),
  });
  return client;
}

const person = (i: number, extra: Record<string, unknown> = {}) => ({
  username: `w${i}`,
  name: `Worker ${i}`,
  biometriccode: String(i),
  block: 0,
  ...extra,
});
const staff = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ uid: i + 1, userId: String(i + 1), name: `Worker ${i + 1}` }));

describe('sync-users --from-hrms against an HRMS answer that is not the whole list', () => {
  it.each([
    ['a total above what it holds', { employees: [1, 2, 3].map((i) => person(i)), total: 20 }, 'says total 20'],
    ['a next page', { rows: [1, 2, 3].map((i) => person(i)), next_page_url: '/fetch?page=2' }, 'names a next page'],
    ['a page count', { items: [1, 2, 3].map((i) => person(i)), meta: { last_page: 7 } }, 'says last_page 7'],
    // Found by a trial: paging that gives no total, only the page it answered and its size.
    [
      'a full page and no total',
      { employees: [1, 2, 3].map((i) => person(i)), page: 1, per_page: 3 },
      'fills a page of per_page 3',
    ],
    // `count` may be the page's own length: it does not end the list.
    [
      'a full page and a count as long as it',
      { employees: [1, 2, 3].map((i) => person(i)), count: 3, per_page: 3 },
      'fills a page of per_page 3',
    ],
    ['a page after the first', { employees: [1, 2, 3].map((i) => person(i)), page: 2 }, 'is page 2'],
    ['an offset', { employees: [1, 2, 3].map((i) => person(i)), offset: 100, limit: 50 }, 'starts at offset 100'],
  ])('one page (%s) is refused whole: nobody removed, exit 1, said in plain words', async (_, data, why) => {
    const { gate } = await env.start({ gate: { users: staff(20) } });
    const c = await hrmsAnswering({ status: true, data });
    await expect(
      env.sync({ fromHrms: true, removeAbsent: true, maxRemovals: '1000' }, { hrms: () => c }),
    ).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringContaining(`the HRMS answered only part of its employee list: it holds 3 and ${why}`),
    });
    expect(gate.users()).toHaveLength(20);
    expect(gate.writeCount()).toBe(0);
    // The fetch itself says so, to every command that uses it.
    const answer = await c.fetch();
    expect(answer).toMatchObject({ ok: false, kind: 'refused', records: [] });
    expect(answer.fix).toContain('hrms.employeeFetch');
  });

  it('a paging envelope around the whole list is fine', async () => {
    const { gate } = await env.start({ gate: { users: staff(3) } });
    const c = await hrmsAnswering({
      status: true,
      total: 3,
      next: null,
      page: 1,
      per_page: 50,
      offset: 0,
      data: [1, 2, 3].map((i) => person(i)),
    });
    const run = await env.sync({ fromHrms: true, removeAbsent: true }, { hrms: () => c });
    expect(run.code).toBe(0);
    expect(gate.users()).toHaveLength(3);
  });

  it('a full page whose total says it is the whole list is fine (the total ends it)', async () => {
    const { gate } = await env.start({ gate: { users: staff(3) } });
    const c = await hrmsAnswering({
      status: true,
      total: 3,
      page: 1,
      per_page: 3,
      data: [1, 2, 3].map((i) => person(i)),
    });
    const run = await env.sync({ fromHrms: true, removeAbsent: true }, { hrms: () => c });
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(gate.users()).toHaveLength(3);
  });

  it('entries that are not employees are bad rows without a code: nobody is removed as absent, exit 65', async () => {
    const { gate } = await env.start({ gate: { users: staff(6) } });
    const c = await hrmsAnswering({ status: true, data: [person(1), [person(2)], null, 'w4', person(5), person(6)] });
    const run = await env.sync({ fromHrms: true, removeAbsent: true, maxRemovals: '1000' }, { hrms: () => c });
    expect(run.code).toBe(65);
    expect(run.err).toContain('punchgate: HRMS list entry 2: expected an employee record, found a list (row skipped)');
    expect(run.err).toContain('punchgate: HRMS list entry 3: expected an employee record, found null (row skipped)');
    expect(run.err).toContain('punchgate: HRMS list entry 4: expected an employee record, found string (row skipped)');
    expect(run.err).toContain('nobody was removed as absent');
    expect(gate.users()).toHaveLength(6);
  });

  it('a field of the wrong type is a bad row, never its JSON on a terminal; HRMS text is escaped on the screen', async () => {
    const { gate } = await env.start({ gate: { users: [] } });
    const c = await hrmsAnswering({
      status: true,
      data: [
        person(1, { name: { first: 'Ann' } }),
        person(2, { biometriccode: true }),
        person(3, { name: ['Cy'] }),
        person(4, { username: 'evil\u001b]0;owned\u0007', name: 'Bad\u0007Name' }),
        person(6, { biometriccode: Number('12345678901234567891') }),
        person(5),
      ],
    });
    const run = await env.sync({ fromHrms: true }, { hrms: () => c });
    expect(run.code).toBe(65);
    expect(run.err).toContain('HRMS employee 1 (w1): name: expected text or a number, found an object (row skipped)');
    expect(run.err).toContain(
      'HRMS employee 2 (w2): biometriccode: expected text or a number, found true (row skipped)',
    );
    expect(run.err).toContain('HRMS employee 3 (w3): name: expected text or a number, found a list (row skipped)');
    expect(run.err).toContain('HRMS employee 4 (evil\\x1b]0;owned\\x07)');
    expect(run.err).toContain(
      'HRMS employee 5 (w6): biometriccode: the number 12345678901234567000 is too large to be read exactly: the HRMS must send it as text (row skipped)',
    );
    expect([...run.err].some((ch) => ch === '\u001b' || ch === '\u0007')).toBe(false);
    expect(usersOf(gate)).toEqual(['1 5 Worker 5 0 0']);
  });
});

describe('sync-users --from-hrms against an HRMS that lists a person twice', () => {
  it('the same code with two cards: neither card is written, the person is left alone, exit 65', async () => {
    const { gate } = await env.start({
      gate: { users: [{ uid: 1, userId: '1', name: 'Worker 1', card: 999 }] },
    });
    const c = await hrmsAnswering({
      status: true,
      data: [person(1, { badge: '111' }), person(2, { badge: '' }), person(1, { badge: '222' })],
    });
    env.config.terminalUsers.fields.card = 'badge';
    const run = await env.sync({ fromHrms: true }, { hrms: () => c });
    // Not the first one's card, nor the second's: the terminal keeps what it had.
    expect(usersOf(gate)).toEqual(['1 1 Worker 1 999 0', '2 2 Worker 2 0 0']);
    expect(run.code).toBe(65);
    expect(run.err).toContain(
      "HRMS employee 3 (w1): code 1 is also HRMS employee 1 (w1)'s: which of the two is right is not known; neither is used and the user is left alone (row skipped)",
    );
    expect(run.err).toContain("HRMS employee 1 (w1): code 1 is also HRMS employee 3 (w1)'s");
  });

  it('a page that repeats people: nobody is removed as absent (the list cannot say who is missing)', async () => {
    const { gate } = await env.start({ gate: { users: staff(6) } });
    // People 1-3 twice, 4 and 5 missing: a page served again in place of the next one.
    const c = await hrmsAnswering({ status: true, data: [1, 2, 3, 1, 2, 3, 6].map((i) => person(i)) });
    const run = await env.sync({ fromHrms: true, removeAbsent: true, maxRemovals: '1000' }, { hrms: () => c });
    expect(gate.users()).toHaveLength(6);
    expect(run.code).toBe(65);
    expect(run.err).toContain('nobody was removed as absent, because the roster lists a code twice');
  });
});
